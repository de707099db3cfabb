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
 * The gRPC port's handshake deadline: a connection that stays silent, sends half an HTTP/2 preface, or completes its
 * TLS handshake and then sends no preface is closed by the server once the deadline passes (gRPC's default would keep
 * it two minutes; netty's own TLS handshake timeout covers only the TLS part); clients that complete their handshake
 * are served meanwhile.
 */
class GrpcHandshakeDeadlineTest {
    /**
     * The servers' handshake deadline here. Long enough that a loaded machine finishes a real TLS handshake within it (at
     * 1 s, ten handshakes in a row were cut mid-way at a load average of 27), short enough that only it closes the slow
     * connections within the 60 s the test waits.
     */
    private static final int DEADLINE_SECONDS = 5;

    private final GrpcCleanup cleanup = new GrpcCleanup();

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    /** Plaintext (the controller's Queues API by default): silent connections and half-sent HTTP/2 prefaces. */
    @Test
    void slowPlaintextConnectionsAreClosedAtTheDeadlineWhileAFullClientIsServed() throws Exception {
        ManagedGrpcServer grpc = cleanup.register(GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0),
                Optional.empty(), DEADLINE_SECONDS, TimeUnit.SECONDS)).start());
        grpc.setServing(true);
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                Socket s = open(grpc.port());
                if (i % 2 == 1) {
                    s.getOutputStream().write("PRI * HTTP/2.0\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)); // then nothing more
                    s.getOutputStream().flush();
                }
                slow.add(s);
            }
            ManagedChannel channel = cleanup.register(Grpc.newChannelBuilderForAddress("127.0.0.1", grpc.port(),
                    io.grpc.InsecureChannelCredentials.create()).build());
            assertServed(channel);
            assertAllClosed(slow);
        } finally {
            closeAll(slow);
        }
    }

    /** TLS: a client that completes the TLS handshake and then never sends the HTTP/2 preface. */
    @Test
    void aTlsConnectionThatNeverSendsItsPrefaceIsClosedAtTheDeadline(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "deadline");
        TestPki.Issued server = pki.server("muster-extender");
        TestPki.Issued client = pki.client("muster-controller");
        ManagedGrpcServer grpc = cleanup.register(GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0),
                Optional.of(new ServerTls(server.cert(), server.key(), pki.caFile())), DEADLINE_SECONDS, TimeUnit.SECONDS)).start());
        grpc.setServing(true);
        javax.net.ssl.SSLContext tls = new dev.muster.common.tls.CertificateFiles(client.cert(), client.key(), pki.caFile()).context(false);
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) tls.getSocketFactory().createSocket(open(grpc.port()), "localhost", grpc.port(), true);
                javax.net.ssl.SSLParameters p = s.getSSLParameters();
                p.setApplicationProtocols(new String[] {"h2"});
                s.setSSLParameters(p);
                s.startHandshake(); // the TLS handshake completes; no HTTP/2 preface follows
                slow.add(s);
            }
            ManagedChannel channel = cleanup.register(Grpc.newChannelBuilderForAddress("localhost", grpc.port(),
                    TlsChannelCredentials.newBuilder().trustManager(pki.caFile().toFile()).keyManager(client.cert().toFile(), client.key().toFile()).build())
                    .build());
            assertServed(channel);
            assertAllClosed(slow);
        } finally {
            closeAll(slow);
        }
    }

    private static Socket open(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(60_000); // generous: the outcome, not the time, is asserted (gRPC's own deadline is 120 s)
        return s;
    }

    private static void assertServed(ManagedChannel channel) {
        assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance())
                .getStatus()).isEqualTo(ServingStatus.SERVING);
    }

    private static void assertAllClosed(List<Socket> slow) throws IOException {
        for (Socket s : slow) {
            assertThat(closedByServer(s)).as("a connection that never finished its handshake is closed by the server").isTrue();
        }
    }

    private static void closeAll(List<Socket> slow) throws IOException {
        for (Socket s : slow) {
            s.close();
        }
    }

    /**
     * True when the server closed the connection (end of stream or reset) within 60 s of the first read: twelve times the
     * deadline these servers get, half of gRPC's own default, so only the deadline can have closed it.
     */
    private static boolean closedByServer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                s.setSoTimeout((int) left);
                if (in.read() < 0) {
                    return true; // the server may write first (settings, an alert); its end of stream is what counts
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        }
    }
}
