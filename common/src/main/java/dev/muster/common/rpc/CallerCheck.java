package dev.muster.common.rpc;

import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CallerRoles.Role;
import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Set;

/**
 * Serves each method of a gRPC service only to callers whose client certificate has one of the method's roles
 * ({@link CallerRoles}); any other call ends at once with PERMISSION_DENIED naming who called and who may, and never
 * reaches the service. A method the rules do not name is served to no one. Immutable; thread-safe.
 */
public final class CallerCheck implements ServerInterceptor {
    private final CallerRoles callers;
    private final Map<String, Set<Role>> rolesByMethod;

    /** {@code rolesByMethod}: method name (e.g. {@code Bind}, without the service) → the roles that may call it. */
    private CallerCheck(CallerRoles callers, Map<String, Set<Role>> rolesByMethod) {
        this.callers = callers;
        this.rolesByMethod = Map.copyOf(rolesByMethod);
    }

    /** {@code service} with every call checked against {@code rolesByMethod} (method name → roles). */
    public static ServerServiceDefinition guard(BindableService service, CallerRoles callers, Map<String, Set<Role>> rolesByMethod) {
        return ServerInterceptors.intercept(service, new CallerCheck(callers, rolesByMethod));
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getBareMethodName();
        Set<Role> wanted = rolesByMethod.getOrDefault(method, Set.of());
        X509Certificate peer = CallerRoles.peer(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
        if (!callers.allows(peer, wanted)) {
            call.close(Status.PERMISSION_DENIED.withDescription(call.getMethodDescriptor().getFullMethodName() + ": "
                    + callers.describe(peer, wanted)), new Metadata());
            return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
    }
}
