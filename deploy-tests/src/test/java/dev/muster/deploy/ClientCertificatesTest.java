package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.tls.CertificateFiles;
import dev.muster.common.tls.PemTls;
import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's client certificates cannot stand in for the extender. Helm's generator gives every certificate both
 * server and client use ({@code tls.source: helm}; cert-manager's are issued for client use only), so what keeps a
 * client's certificate from serving is that it names no host: it has no subject alternative names, and its common
 * name is a caller's identity, not the Service's name. A client that checks the host it dialled, as kube-scheduler does
 * ({@code tlsConfig.serverName}, by subject alternative names only) and as Java's HTTPS check does, refuses it; the
 * extender's own certificate passes the same check.
 */
class ClientCertificatesTest {
    private static final String SERVICE = "muster-extender.muster-system.svc";

    @Test
    void aClientCertificateNamesNoHostSoItCannotServeAsTheExtender(@TempDir Path dir) throws Exception {
        Rendered chart = Chart.render(Install.defaults());
        Path ext = files(chart, "muster-extender-tls", dir.resolve("extender"));
        assertThat(serve(ext, ext.resolve("ca.crt"))).as("the extender's own certificate, checked against its Service name").isTrue();

        for (String client : List.of("muster-scheduler-client-tls", "muster-controller-client-tls", "muster-operator-client-tls")) {
            Path d = files(chart, client, dir.resolve(client));
            X509Certificate cert = new CertificateFiles(d.resolve("tls.crt"), d.resolve("tls.key"), null).certificate();
            assertThat(cert.getSubjectAlternativeNames()).as(client + ": no host, no address").isNull();
            assertThat(cert.getExtendedKeyUsage()).as(client + ": Helm's generator adds server use too").contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
            assertThatThrownBy(() -> serve(d, ext.resolve("ca.crt"))).as(client + " presented as the extender's certificate")
                    .isInstanceOf(SSLHandshakeException.class);
        }
    }

    /** A TLS server on 127.0.0.1 presenting {@code certDir}'s certificate; a client trusting {@code caFile} dials it as the Service. */
    private static boolean serve(Path certDir, Path caFile) throws Exception {
        var serverTls = new CertificateFiles(certDir.resolve("tls.crt"), certDir.resolve("tls.key"), null).context(false);
        try (SSLServerSocket server = (SSLServerSocket) serverTls.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try (SSLSocket s = (SSLSocket) server.accept()) {
                    s.startHandshake();
                } catch (java.io.IOException e) {
                    // the client refused the certificate
                }
            });
            try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                 SSLSocket client = (SSLSocket) PemTls.clientContext(caFile).getSocketFactory().createSocket(raw, SERVICE, server.getLocalPort(), true)) {
                SSLParameters p = client.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                client.setSSLParameters(p);
                client.startHandshake();
            } finally {
                accepted.join();
            }
        }
        return true;
    }

    private static Path files(Rendered chart, String secret, Path dir) throws Exception {
        Files.createDirectories(dir);
        Map<String, Object> data = Tree.map(chart.one("Secret", secret).body(), "data");
        for (String key : List.of("tls.crt", "tls.key", "ca.crt")) {
            Files.write(dir.resolve(key), Base64.getDecoder().decode((String) data.get(key)));
        }
        return dir;
    }
}
