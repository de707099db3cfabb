package dev.muster.server.http;

import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CertificateFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

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

    /** How often a forwarded request still unanswered checks that its leader still holds the Lease. */
    static final Duration RECHECK = Duration.ofMillis(250);

    private final HttpClient client;
    private final Duration timeout;

    /**
     * @param tls this replica's own verbs certificate, when the verbs use HTTPS (null for plain HTTP): presented to the
     *            leader as the client certificate its verbs port asks for, and its CA file, when given, checks the
     *            leader's certificate. The leader is dialled at its pod IP, which no certificate names, so the check is
     *            the chain to that CA (Muster's own, which signs only Muster's components), not the host name.
     */
    public LeaderForwarder(CertificateFiles tls, Duration timeout) {
        this(tls, CallerRoles.ANY, timeout);
    }

    /**
     * As {@link #LeaderForwarder(CertificateFiles, Duration)}; the leader's certificate must also have the role
     * {@code extender} in {@code callers} ({@code --tls-client-roles}): another certificate of the CA (kube-scheduler's,
     * the controller's) cannot pose as the leader.
     */
    public LeaderForwarder(CertificateFiles tls, CallerRoles callers, Duration timeout) {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            b.sslContext(tls.context(false, leader -> callers.of(leader).contains(CallerRoles.Role.EXTENDER)));
        }
        this.client = b.build();
        this.timeout = timeout;
    }

    /**
     * POSTs {@code body} to {@code leaderUrl + path} with {@link #FORWARDED_BY}{@code : forwardedBy}; a transport
     * failure is a 503 naming the leader, never thrown. The wait is bounded by the Lease, not only by the timeout:
     * {@code stillLeader} is asked every {@link #RECHECK} while the answer is awaited, and once it says the Lease no
     * longer names that leader (it stopped renewing and another replica, perhaps this one, took over) the request is
     * abandoned with a 503 and kube-scheduler retries the pod with the new leader — a frozen leader holds a forwarded
     * bind for at most its lease duration, not for kube-scheduler's whole extender timeout.
     */
    public Forwarded forward(String leaderUrl, String path, byte[] body, String forwardedBy, BooleanSupplier stillLeader) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(leaderUrl + path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header(FORWARDED_BY, forwardedBy)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        CompletableFuture<HttpResponse<byte[]>> answer = client.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray());
        try {
            while (true) {
                try {
                    HttpResponse<byte[]> resp = answer.get(RECHECK.toMillis(), TimeUnit.MILLISECONDS);
                    return new Forwarded(resp.statusCode(), resp.body());
                } catch (TimeoutException stillWaiting) {
                    if (!stillLeader.getAsBoolean()) {
                        answer.cancel(true);
                        return new Forwarded(503, ExtenderHttpServer.error("this muster extender forwarded the request to the leader at "
                                + leaderUrl + ", which no longer holds the Lease; retry with the new leader"));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            return new Forwarded(503, ExtenderHttpServer.error("this muster extender is a standby and was interrupted forwarding to the leader at "
                    + leaderUrl));
        } catch (ExecutionException e) {
            return new Forwarded(503, ExtenderHttpServer.error("this muster extender is a standby and could not reach the leader at "
                    + leaderUrl + ": " + e.getCause().getMessage()));
        }
    }

    /** {@link #forward(String, String, byte[], String, BooleanSupplier)} for as long as the timeout allows. */
    public Forwarded forward(String leaderUrl, String path, byte[] body, String forwardedBy) {
        return forward(leaderUrl, path, body, forwardedBy, () -> true);
    }
}
