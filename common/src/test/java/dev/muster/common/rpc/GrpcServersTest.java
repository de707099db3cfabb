package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.proto.v1.AllocationsGrpc;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GrpcServersTest {
    private final GrpcCleanup cleanup = new GrpcCleanup();
    private ManagedGrpcServer server;
    private ManagedChannel channel;

    /** A service with no behaviour: only its name matters for health and reflection. */
    private static final class NamedOnlyAllocations extends AllocationsGrpc.AllocationsImplBase {}

    @BeforeEach
    void startServer() {
        String name = InProcessServerBuilder.generateName();
        server = cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name).directExecutor(), new NamedOnlyAllocations()).start());
        channel = cleanup.register(InProcessChannelBuilder.forName(name).directExecutor().build());
    }

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void healthIsNotServingUntilTheOwnerSaysSoThenServing() {
        var health = HealthGrpc.newBlockingStub(channel);

        assertThat(health.check(HealthCheckRequest.newBuilder().build()).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(health.check(HealthCheckRequest.newBuilder().setService("muster.v1.Allocations").build()).getStatus())
                .isEqualTo(ServingStatus.NOT_SERVING);

        server.setServing(true);

        assertThat(health.check(HealthCheckRequest.newBuilder().build()).getStatus()).isEqualTo(ServingStatus.SERVING);
        assertThat(health.check(HealthCheckRequest.newBuilder().setService("muster.v1.Allocations").build()).getStatus())
                .isEqualTo(ServingStatus.SERVING);

        server.setServing(false);

        assertThat(health.check(HealthCheckRequest.newBuilder().build()).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
    }

    @Test
    void reflectionListsTheApplicationHealthAndReflectionServices() throws Exception {
        CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel).serverReflectionInfo(new StreamObserver<>() {
            @Override
            public void onNext(ServerReflectionResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
        });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        requests.onCompleted();

        List<String> services = answer.get(10, TimeUnit.SECONDS).getListServicesResponse().getServiceList().stream().map(ServiceResponse::getName).toList();

        assertThat(services).contains("muster.v1.Allocations", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
    }

    @Test
    void aNettyServerOnPortZeroReportsItsBoundPort() {
        ManagedGrpcServer netty = cleanup.register(
                GrpcServers.build(GrpcServers.netty(new java.net.InetSocketAddress("127.0.0.1", 0), java.util.Optional.empty())).start());

        assertThat(netty.port()).isPositive();
        assertThat(server.port()).isEqualTo(-1);
    }

    static Stream<Arguments> incompleteServerTls() {
        return Stream.of(
                Arguments.of("a certificate without its key", "cert", null, null, "--grpc-tls-key-file missing"),
                Arguments.of("a key without its certificate", null, "key", null, "--grpc-tls-cert-file missing"),
                Arguments.of("a client CA alone", null, null, "ca", "needs both a certificate file and a key file"),
                Arguments.of("an unreadable certificate", "nope", "key", null, "--grpc-tls-cert-file"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("incompleteServerTls")
    void incompleteServerTlsFlagsAreRejectedNamingTheFlag(String name, String cert, String key, String ca, String message, @TempDir Path dir)
            throws Exception {
        String certFile = file(dir, cert);
        String keyFile = file(dir, key);
        String caFile = file(dir, ca);
        if ("nope".equals(cert)) {
            certFile = dir.resolve("missing.pem").toString();
        }
        String c = certFile;
        assertThatThrownBy(() -> ServerTls.fromFiles(c, keyFile, caFile)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void noTlsFlagsMeanPlaintext() {
        assertThat(ServerTls.fromFiles(null, "", " ")).isEmpty();
    }

    private static String file(Path dir, String name) throws Exception {
        if (name == null) {
            return null;
        }
        Path p = dir.resolve(name + ".pem");
        Files.writeString(p, "x");
        return p.toString();
    }
}
