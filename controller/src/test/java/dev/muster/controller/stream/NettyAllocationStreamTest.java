package dev.muster.controller.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.GrpcCleanup;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.common.rpc.ServerTls;
import dev.muster.common.rpc.TestPki;
import dev.muster.controller.rpc.ClientTls;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import dev.muster.server.stream.WatchRecorder;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The stream over netty on loopback: plaintext, server TLS, and mutual TLS with a throwaway CA. */
class NettyAllocationStreamTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    enum Security { PLAINTEXT, TLS, MUTUAL_TLS }

    @TempDir
    Path dir;
    private final GrpcCleanup cleanup = new GrpcCleanup();
    private final ExecutorService drain = cleanup.register(Executors.newFixedThreadPool(2));
    private final AllocationJournal journal = new AllocationJournal(4096, java.time.InstantSource.system());
    private TestPki pki;

    @BeforeEach
    void pki() throws Exception {
        pki = new TestPki(dir, "muster");
    }

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Security.class)
    void theClientFollowsTheStreamOverNetty(Security security) throws Exception {
        Optional<ServerTls> serverTls = switch (security) {
            case PLAINTEXT -> Optional.empty();
            case TLS -> Optional.of(serverTls(false));
            case MUTUAL_TLS -> Optional.of(serverTls(true));
        };
        Optional<ClientTls> clientTls = switch (security) {
            case PLAINTEXT -> Optional.empty();
            case TLS -> Optional.of(new ClientTls(pki.caFile(), null, null));
            case MUTUAL_TLS -> {
                TestPki.Issued client = pki.client("controller");
                yield Optional.of(new ClientTls(pki.caFile(), client.cert(), client.key()));
            }
        };
        String target = "127.0.0.1:" + start(serverTls).port();
        AllocationStreamClientTest.append(journal, 500);
        RecordingListener listener = new RecordingListener();
        AllocationStreamClient client = cleanup.register(new AllocationStreamClient(target,
                t -> GrpcChannels.open(t, clientTls, "localhost"), listener, AllocationStreamClientTest.FAST));

        client.start();
        await().atMost(WAIT).until(() -> listener.last() == 500);
        AllocationStreamClientTest.append(journal, 500);
        await().atMost(WAIT).until(() -> listener.last() == 1000);

        assertThat(listener.eventSequences()).containsExactlyElementsOf(LongStream.rangeClosed(1, 1000).boxed().toList());
        assertThat(listener.folded()).isEqualTo(journal.snapshot());
        assertThat(listener.violations()).isEmpty();
    }

    @Test
    void mutualTlsRejectsAClientWithoutACertificate() throws Exception {
        int port = start(Optional.of(serverTls(true))).port();

        Status status = watchOnce(GrpcChannels.open("127.0.0.1:" + port, Optional.of(new ClientTls(pki.caFile(), null, null)), "localhost"));

        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }

    @Test
    void mutualTlsRejectsAClientCertificateFromAnotherCa() throws Exception {
        int port = start(Optional.of(serverTls(true))).port();
        TestPki.Issued stranger = new TestPki(dir, "stranger").client("intruder");

        Status status = watchOnce(GrpcChannels.open("127.0.0.1:" + port, Optional.of(new ClientTls(pki.caFile(), stranger.cert(), stranger.key())), "localhost"));

        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }

    @Test
    void aClientThatDoesNotTrustTheServersCaIsRejected() throws Exception {
        int port = start(Optional.of(serverTls(false))).port();
        Path otherCa = new TestPki(dir, "other").caFile();

        Status status = watchOnce(GrpcChannels.open("127.0.0.1:" + port, Optional.of(new ClientTls(otherCa, null, null)), "localhost"));

        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }

    /**
     * A CA rotation on both sides (the Secrets' files replaced, as a Secret volume is): the controller's credentials,
     * made once, take up the new CA and certificate on the next connection, without a restart.
     */
    @Test
    void aRotatedCaIsTakenUpByTheNextConnectionWithTheSameCredentials() throws Exception {
        Path srv = java.nio.file.Files.createDirectories(dir.resolve("srv"));
        Path cli = java.nio.file.Files.createDirectories(dir.resolve("cli"));
        install(pki, pki.server("extender"), srv);
        install(pki, pki.client("controller"), cli);
        int port = start(Optional.of(new ServerTls(srv.resolve("tls.crt"), srv.resolve("tls.key"), srv.resolve("ca.crt")))).port();
        io.grpc.ChannelCredentials creds = new ClientTls(cli.resolve("ca.crt"), cli.resolve("tls.crt"), cli.resolve("tls.key")).credentials();
        assertThat(healthOn(port, creds)).isTrue();

        TestPki rotated = new TestPki(dir, "rotated");
        install(rotated, rotated.server("extender"), srv);
        install(rotated, rotated.client("controller"), cli);
        await().atMost(WAIT).ignoreExceptions().until(() -> healthOn(port, creds));
    }

    /** The files a Secret volume holds: tls.crt, tls.key, ca.crt, each replaced with a new modification time. */
    private static void install(TestPki pki, TestPki.Issued issued, Path to) throws Exception {
        java.nio.file.attribute.FileTime now = java.nio.file.attribute.FileTime.from(java.time.Instant.now());
        for (var e : java.util.Map.of("tls.crt", issued.cert(), "tls.key", issued.key(), "ca.crt", pki.caFile()).entrySet()) {
            java.nio.file.Files.copy(e.getValue(), to.resolve(e.getKey()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            java.nio.file.Files.setLastModifiedTime(to.resolve(e.getKey()), now);
        }
    }

    /** A new channel with {@code creds}; true when the server's health check answers over it. */
    private boolean healthOn(int port, io.grpc.ChannelCredentials creds) {
        ManagedChannel channel = cleanup.register(io.grpc.Grpc.newChannelBuilderForAddress("localhost", port, creds).build());
        io.grpc.health.v1.HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance());
        return true;
    }

    private ServerTls serverTls(boolean mutual) throws Exception {
        TestPki.Issued server = pki.server("extender");
        return new ServerTls(server.cert(), server.key(), mutual ? pki.caFile() : null);
    }

    private ManagedGrpcServer start(Optional<ServerTls> tls) {
        AllocationsService service = new AllocationsService(journal, Leadership.ALWAYS, drain);
        return cleanup.register(GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0), tls), service).start());
    }

    /** Opens one Watch on {@code channel} and returns how it ended (waiting at most 30 s for the first message). */
    private Status watchOnce(ManagedChannel channel) throws Exception {
        cleanup.register(channel);
        WatchRecorder recorder = new WatchRecorder();
        AllocationsGrpc.newStub(channel).watch(WatchRequest.newBuilder().build(), recorder);
        return recorder.closed.get(30, TimeUnit.SECONDS);
    }
}
