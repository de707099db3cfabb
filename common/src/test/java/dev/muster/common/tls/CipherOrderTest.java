package dev.muster.common.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.rpc.TestPki;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cipher Muster's connections ask for first: with C1 alone ChaCha20-Poly1305, as a client (to a server that
 * follows the client's first choice, as the API server does when it is not AES-GCM) and as a server (which picks by its
 * own order), with every suite the JDK enables still enabled.
 */
class CipherOrderTest {
    @TempDir
    Path dir;

    @Test
    void chachaFirstMovesOnlyTheChachaSuitesToTheFront() {
        String[] jdk = {"TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"};
        assertThat(CipherOrder.CHACHA_FIRST.order(jdk)).containsExactly("TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
        assertThat(CipherOrder.JDK.order(jdk)).containsExactly(jdk);
        assertThat(CipherOrder.CHACHA_FIRST.okhttpSpec().cipherSuites()).containsExactlyInAnyOrderElementsOf(ConnectionSpec.MODERN_TLS.cipherSuites());
    }

    @Test
    void anOkhttpClientAsksForChachaFirst() throws Exception {
        assertThat(negotiatedByOkhttp(CipherOrder.CHACHA_FIRST)).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
        assertThat(negotiatedByOkhttp(CipherOrder.JDK)).as("with C2: the JDK's and okhttp's order, AES-GCM first").contains("_GCM_");
    }

    @Test
    void aServerPicksChachaByItsOwnOrder() throws Exception {
        assertThat(negotiatedByServer(CipherOrder.CHACHA_FIRST)).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
        assertThat(negotiatedByServer(CipherOrder.JDK)).contains("_GCM_");
    }

    @Test
    void thisTestJvmCompilesWithC2AndKeepsTheJdksOrder() {
        assertThat(CipherOrder.withoutC2()).as("surefire's JVM runs the default tiered JIT").isFalse();
        assertThat(CipherOrder.forThisJvm()).isEqualTo(CipherOrder.JDK);
        assertThat(CipherOrder.JDK.describe()).isEqualTo("TLS in the JDK's cipher order (AES-GCM first)");
        assertThat(CipherOrder.CHACHA_FIRST.describe()).isEqualTo("TLS asks for ChaCha20-Poly1305 first (no C2 compiler)");
    }

    @Test
    void thePropertySetsTheOrderWhateverTheJit() {
        assertThat(CipherOrder.of(null, true)).isEqualTo(CipherOrder.CHACHA_FIRST);
        assertThat(CipherOrder.of("", false)).isEqualTo(CipherOrder.JDK);
        assertThat(CipherOrder.of("jdk", true)).isEqualTo(CipherOrder.JDK);
        assertThat(CipherOrder.of("chacha-first", false)).isEqualTo(CipherOrder.CHACHA_FIRST);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CipherOrder.of("aes", true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("muster.tls.cipherOrder=aes").hasMessageContaining("jdk or chacha-first");
    }

    /** Muster's HTTPS server (the verbs' port) with the order set: kube-scheduler's Go client asks for AES-GCM first. */
    @Test
    void musterHttpsServerGivesChachaToAClientAskingForAesFirst() throws Exception {
        TestPki pki = new TestPki(dir, "http1");
        TestPki.Issued server = pki.server("server");
        String before = System.getProperty(CipherOrder.PROPERTY);
        System.setProperty(CipherOrder.PROPERTY, "chacha-first"); // as the JVM without C2 chooses
        dev.muster.common.http.Http1Server http;
        try {
            http = new dev.muster.common.http.Http1Server("cipher-test", new java.net.InetSocketAddress("127.0.0.1", 0),
                    new CertificateFiles(server.cert(), server.key(), null).context(false),
                    request -> dev.muster.common.http.Http1Response.text(200, "ok\n"), 1024, java.time.Duration.ofSeconds(10), 4);
        } finally {
            if (before == null) {
                System.clearProperty(CipherOrder.PROPERTY);
            } else {
                System.setProperty(CipherOrder.PROPERTY, before);
            }
        }
        try (http) {
            SSLContext clientTls = new CertificateFiles(server.cert(), server.key(), pki.caFile()).context(false);
            try (SSLSocket c = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", http.port())) {
                c.setEnabledCipherSuites(new String[] {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"});
                c.startHandshake();
                assertThat(c.getSession().getCipherSuite()).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
            }
        }
    }

    /** An okhttp client with {@code order}'s spec against a server that takes the client's first choice. */
    private String negotiatedByOkhttp(CipherOrder order) throws Exception {
        TestPki pki = new TestPki(dir, "ciphers-" + order);
        TestPki.Issued server = pki.server("server");
        SSLContext serverTls = new CertificateFiles(server.cert(), server.key(), null).context(false);
        try (SSLServerSocket listener = (SSLServerSocket) serverTls.getServerSocketFactory().createServerSocket(0)) {
            javax.net.ssl.SSLParameters p = listener.getSSLParameters();
            p.setUseCipherSuitesOrder(false); // the client's first choice wins, as with the API server
            listener.setSSLParameters(p);
            CompletableFuture<String> chosen = CompletableFuture.supplyAsync(() -> answerOne(listener));
            CertificateFiles trust = new CertificateFiles(server.cert(), server.key(), pki.caFile());
            SSLContext clientTls = trust.context(false);
            OkHttpClient client = new OkHttpClient.Builder()
                    .sslSocketFactory(clientTls.getSocketFactory(), trust.trustManager(false))
                    .hostnameVerifier((h, s) -> true)
                    .connectionSpecs(List.of(order.okhttpSpec()))
                    .build();
            try (Response r = client.newCall(new Request.Builder().url("https://127.0.0.1:" + listener.getLocalPort() + "/").build()).execute()) {
                assertThat(r.code()).isEqualTo(200);
            }
            return chosen.get(10, TimeUnit.SECONDS);
        }
    }

    /** A JDK server ordered by {@code order} against a JDK client in the JDK's order (AES-GCM first). */
    private String negotiatedByServer(CipherOrder order) throws Exception {
        TestPki pki = new TestPki(dir, "server-" + order);
        TestPki.Issued server = pki.server("server");
        SSLContext serverTls = new CertificateFiles(server.cert(), server.key(), null).context(false);
        try (SSLServerSocket listener = (SSLServerSocket) serverTls.getServerSocketFactory().createServerSocket(0)) {
            CompletableFuture<String> chosen = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) listener.accept()) {
                    order.apply(s);
                    s.startHandshake();
                    return s.getSession().getCipherSuite();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            SSLContext clientTls = new CertificateFiles(server.cert(), server.key(), pki.caFile()).context(false);
            try (SSLSocket c = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", listener.getLocalPort())) {
                c.startHandshake();
                assertThat(c.getEnabledCipherSuites()[0]).as("the client asks for AES-GCM first").contains("AES");
                return chosen.get(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String answerOne(SSLServerSocket listener) {
        try (SSLSocket s = (SSLSocket) listener.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                // the request's head
            }
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return s.getSession().getCipherSuite();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
