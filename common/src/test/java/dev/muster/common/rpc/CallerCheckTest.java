package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CallerRoles.Role;
import dev.muster.proto.v1.BindRequest;
import dev.muster.proto.v1.BindResponse;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.FilterRequest;
import dev.muster.proto.v1.FilterResponse;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each gRPC method serves only its own callers' certificates, over real mutual TLS. */
class CallerCheckTest {
    private final GrpcCleanup cleanup = new GrpcCleanup();

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void theVerbsServeOnlyTheSchedulerAndTheDryRunOnlyAnOperator(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "muster");
        TestPki.Issued server = pki.server("muster-extender");
        AtomicInteger reached = new AtomicInteger();
        ExtenderGrpc.ExtenderImplBase service = new ExtenderGrpc.ExtenderImplBase() {
            @Override
            public void bind(BindRequest request, StreamObserver<BindResponse> out) {
                reached.incrementAndGet();
                out.onNext(BindResponse.getDefaultInstance());
                out.onCompleted();
            }

            @Override
            public void whatWouldItTake(WhatWouldItTakeRequest request, StreamObserver<WhatWouldItTakeResponse> out) {
                reached.incrementAndGet();
                out.onNext(WhatWouldItTakeResponse.getDefaultInstance());
                out.onCompleted();
            }
        };
        CallerRoles roles = CallerRoles.parse("tls-client-roles",
                "scheduler=muster-scheduler,controller=muster-controller,operator=muster-operator,extender=muster-extender");
        ManagedGrpcServer grpc = cleanup.register(GrpcServers.build(
                GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0), Optional.of(new ServerTls(server.cert(), server.key(), pki.caFile()))),
                List.of(CallerCheck.guard(service, roles, Map.of("Bind", Set.of(Role.SCHEDULER), "WhatWouldItTake", Set.of(Role.OPERATOR)))))
                .start());

        ExtenderGrpc.ExtenderBlockingStub scheduler = stub(grpc.port(), pki, pki.client("muster-scheduler"));
        ExtenderGrpc.ExtenderBlockingStub controller = stub(grpc.port(), pki, pki.client("muster-controller"));
        ExtenderGrpc.ExtenderBlockingStub operator = stub(grpc.port(), pki, pki.client("muster-operator"));
        ExtenderGrpc.ExtenderBlockingStub unnamed = stub(grpc.port(), pki, pki.client("someone"));

        scheduler.bind(BindRequest.getDefaultInstance());
        operator.whatWouldItTake(WhatWouldItTakeRequest.getDefaultInstance());
        assertThat(reached).hasValue(2);

        for (ExtenderGrpc.ExtenderBlockingStub refused : List.of(controller, operator, unnamed)) {
            assertThatThrownBy(() -> refused.bind(BindRequest.getDefaultInstance())).isInstanceOfSatisfying(StatusRuntimeException.class,
                    e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                        assertThat(e.getStatus().getDescription()).contains("muster.v1.Extender/Bind", "[SCHEDULER]");
                    });
        }
        assertThatThrownBy(() -> controller.whatWouldItTake(WhatWouldItTakeRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getDescription())
                        .contains("\"muster-controller\"", "[OPERATOR]"));
        assertThatThrownBy(() -> scheduler.filter(FilterRequest.getDefaultInstance()))
                .as("a method the rules do not name serves no one").isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        assertThat(reached).as("no refused call reached the service").hasValue(2);
    }

    @Test
    void withoutTheFlagEveryCertificateOfTheCaMayCallEverything(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "muster");
        TestPki.Issued server = pki.server("muster-extender");
        ExtenderGrpc.ExtenderImplBase service = new ExtenderGrpc.ExtenderImplBase() {
            @Override
            public void filter(FilterRequest request, StreamObserver<FilterResponse> out) {
                out.onNext(FilterResponse.getDefaultInstance());
                out.onCompleted();
            }
        };
        ManagedGrpcServer grpc = cleanup.register(GrpcServers.build(
                GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0), Optional.of(new ServerTls(server.cert(), server.key(), pki.caFile()))),
                List.of(CallerCheck.guard(service, CallerRoles.parse("tls-client-roles", ""), Map.of("Filter", Set.of(Role.SCHEDULER)))))
                .start());
        assertThat(stub(grpc.port(), pki, pki.client("anyone")).filter(FilterRequest.getDefaultInstance())).isNotNull();
    }

    @Test
    void aMalformedRoleFlagIsRefusedNamingTheEntry() {
        assertThatThrownBy(() -> CallerRoles.parse("tls-client-roles", "scheduler=a,admin=b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-client-roles").hasMessageContaining("\"admin=b\"");
        assertThatThrownBy(() -> CallerRoles.parse("tls-client-roles", "scheduler=")).hasMessageContaining("\"scheduler=\"");
    }

    private ExtenderGrpc.ExtenderBlockingStub stub(int port, TestPki pki, TestPki.Issued client) throws Exception {
        ChannelCredentials creds = TlsChannelCredentials.newBuilder().keyManager(client.cert().toFile(), client.key().toFile())
                .trustManager(pki.caFile().toFile()).build();
        ManagedChannel channel = cleanup.register(Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
        return ExtenderGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }
}
