package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC port's handshake deadline: a connection that stays silent, or starts a TLS handshake and stops, is closed
 * by the server once the deadline passes (gRPC's default would keep it two minutes); clients that complete their
 * handshake are served meanwhile.
 */
class GrpcHandshakeDeadlineTest {
    private final GrpcCleanup cleanup = new GrpcCleanup();

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void slowConnectionsAreClosedAtTheDeadlineWhileAFullHandshakeIsServed(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "deadline");
        TestPki.Issued server = pki.server("muster-extender");
        ManagedGrpcServer grpc = cleanup.register(GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0),
                Optional.of(new ServerTls(server.cert(), server.key(), pki.caFile())), 1, TimeUnit.SECONDS)).start());
        grpc.setServing(true);

        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                Socket s = new Socket("127.0.0.1", grpc.port());
                s.setSoTimeout(60_000); // generous: the outcome, not the time, is asserted
                if (i % 2 == 1) {
                    // the first bytes of a TLS record header (a ClientHello), then nothing more
                    s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x01});
                    s.getOutputStream().flush();
                }
                slow.add(s);
            }

            TestPki.Issued client = pki.client("muster-controller");
            ManagedChannel channel = cleanup.register(Grpc.newChannelBuilderForAddress("localhost", grpc.port(),
                    TlsChannelCredentials.newBuilder().trustManager(pki.caFile().toFile()).keyManager(client.cert().toFile(), client.key().toFile()).build())
                    .build());
            assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance())
                    .getStatus()).isEqualTo(ServingStatus.SERVING);

            for (Socket s : slow) {
                assertThat(closedByServer(s)).as("a connection that never finished its handshake is closed by the server").isTrue();
            }
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /** True when the server closed the connection (end of stream or reset) before the read's own timeout. */
    private static boolean closedByServer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (true) {
                if (in.read() < 0) {
                    return true; // the server may write an alert first; its end of stream is what counts
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        }
    }
}
