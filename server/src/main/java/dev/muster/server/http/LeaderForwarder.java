package dev.muster.server.http;

import dev.muster.common.tls.CertificateFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Forwards a verb a standby received to the leader, so kube-scheduler's one Service address always
 * reaches the warm ledger. A standby never decides itself (with no leader to forward to, {@link ExtenderHttpServer}
 * answers 503).
 * Thread-safe (the JDK HttpClient is).
 */
public final class LeaderForwarder {
    /** The hop header: the Lease identity of the standby that forwarded a request. A request carrying it is never forwarded again. */
    public static final String FORWARDED_BY = "X-Muster-Forwarded-By";

    /** The leader's answer, passed through unchanged. */
    public record Forwarded(int status, byte[] body) {}

    private final HttpClient client;
    private final Duration timeout;

    /**
     * @param tls this replica's own verbs certificate, when the verbs use HTTPS (null for plain HTTP): presented to the
     *            leader as the client certificate its verbs port asks for, and its CA file, when given, checks the
     *            leader's certificate. The leader is dialled at its pod IP, which no certificate names, so the check is
     *            the chain to that CA (Muster's own, which signs only Muster's components), not the host name.
     */
    public LeaderForwarder(CertificateFiles tls, Duration timeout) {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            b.sslContext(tls.context(false));
        }
        this.client = b.build();
        this.timeout = timeout;
    }

    /**
     * POSTs {@code body} to {@code leaderUrl + path} with {@link #FORWARDED_BY}{@code : forwardedBy}; a transport
     * failure is a 503 naming the leader, never thrown.
     */
    public Forwarded forward(String leaderUrl, String path, byte[] body, String forwardedBy) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(leaderUrl + path))
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .header(FORWARDED_BY, forwardedBy)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build();
            HttpResponse<byte[]> resp = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
            return new Forwarded(resp.statusCode(), resp.body());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return new Forwarded(503, ExtenderHttpServer.error("this muster extender is a standby and could not reach the leader at "
                    + leaderUrl + ": " + e.getMessage()));
        }
    }
}
