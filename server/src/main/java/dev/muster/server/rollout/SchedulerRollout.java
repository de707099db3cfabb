package dev.muster.server.rollout;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.kube.TlsSecretWatch;
import dev.muster.common.tls.TlsSource;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.Response;

/**
 * Restarts kube-scheduler when the CA in the extender's Secret changes. kube-scheduler reads its extender {@code caFile}
 * only at start, so after a CA change that no Helm render announced (cert-manager re-issuing from a new CA, Secrets
 * replaced by hand) it would refuse the extender's new certificate until someone restarted it. The leader sets the pod
 * template annotation {@value #ANNOTATION} of kube-scheduler's Deployment to a checksum of the Secret's {@code ca.crt}
 * (a merge patch of that one annotation); a new value rolls the Deployment, whose new pods mount the Secrets as they are
 * then. The same value again changes nothing, so every leader sets it at start and after each change. It sets it only
 * once this process presents the Secret's certificate ({@code serving}): a Secret whose material cannot be used (a key
 * or certificate that does not parse) keeps the old certificate in use, and a kube-scheduler restarted to trust only
 * the new CA would then refuse it.
 *
 * <p>The checksum is the one the chart's Helm route writes into the same annotation (SHA-256 of the base64 text of
 * {@code ca.crt}, Helm's {@code sha256sum} of the Secret's data): after a {@code helm upgrade} that changed the CA,
 * Helm and the extender set the same value and kube-scheduler rolls once.
 *
 * <p>RBAC: {@code patch} on that one Deployment ({@code resourceNames}). A failed patch is said in the log and tried
 * again every {@link #RETRY_MILLIS} ms.
 *
 * <p>Threading: one daemon thread owns {@code patched}; it looks at the Secret's snapshot (a volatile read) every
 * {@link #LOOK_EVERY_MILLIS} ms and asks {@code leading} right before each patch.
 */
public final class SchedulerRollout implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SchedulerRollout.class.getName());
    /** The pod-template annotation of kube-scheduler's Deployment that carries the CA's checksum. */
    public static final String ANNOTATION = "checksum/extender-ca";
    static final long LOOK_EVERY_MILLIS = 200;
    static final long RETRY_MILLIS = 5000;

    private final ApiClient client;
    private final TlsSource secret;
    private final String namespace;
    private final String name;
    private final BooleanSupplier leading;
    private final java.util.function.Supplier<java.security.cert.X509Certificate> serving;
    private final Thread thread;
    private String waitedFor; // the checksum last said to wait for this process's certificate; owned by the thread
    private volatile boolean closed;
    private String patched; // the checksum this leader last set; owned by the thread

    /**
     * @param deployment {@code NAMESPACE/NAME} of kube-scheduler's Deployment
     * @param leading    asked right before every patch: a process that does not lead patches nothing
     * @param serving    the certificate this process presents to kube-scheduler now
     */
    public SchedulerRollout(ApiClient client, TlsSource secret, String deployment, BooleanSupplier leading,
                            java.util.function.Supplier<java.security.cert.X509Certificate> serving) {
        String[] nn = TlsSecretWatch.parse("scheduler-deployment", deployment);
        this.client = client;
        this.secret = secret;
        this.namespace = nn[0];
        this.name = nn[1];
        this.leading = leading;
        this.serving = serving;
        this.thread = Thread.ofPlatform().daemon().name("scheduler-rollout").unstarted(this::run);
    }

    public SchedulerRollout start() {
        thread.start();
        return this;
    }

    /** {@value #ANNOTATION}'s value for {@code caCrt}: SHA-256, in hex, of its base64 text (what Helm's checksum takes). */
    public static String checksum(byte[] caCrt) {
        try {
            byte[] b64 = Base64.getEncoder().encode(caCrt);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b64));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void run() {
        while (!closed) {
            try {
                Thread.sleep(look());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * One look (on the rollout's thread, or a test's): patches the annotation when this leader has not set the Secret's
     * CA's checksum yet and presents its certificate. Returns how long to wait before the next look, in milliseconds.
     */
    long look() {
        if (!leading.getAsBoolean()) {
            patched = null; // a next term sets it again
            return LOOK_EVERY_MILLIS;
        }
        TlsSource.Snapshot s = secret.current();
        byte[] ca = s == null ? null : s.data().get("ca.crt");
        if (ca == null) {
            return LOOK_EVERY_MILLIS;
        }
        String sum = checksum(ca);
        if (sum.equals(patched) || !presents(s.data().get("tls.crt"), sum)) {
            return LOOK_EVERY_MILLIS;
        }
        if (!patch(sum)) {
            return RETRY_MILLIS;
        }
        patched = sum;
        return LOOK_EVERY_MILLIS;
    }

    /** Whether this process presents the first certificate of {@code crt} (said once per checksum when it does not). */
    private boolean presents(byte[] crt, String sum) {
        boolean yes;
        try {
            yes = crt != null && java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(crt)).equals(serving.get());
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            yes = false;
        }
        if (!yes && !sum.equals(waitedFor)) {
            waitedFor = sum;
            LOG.log(System.Logger.Level.WARNING, "the CA in " + secret.describe() + " changed, but this process does not present that Secret's"
                    + " certificate (yet, or it cannot be used: see the TLS log lines); kube-scheduler is restarted once it does");
        }
        return yes;
    }

    /** Sets the annotation to {@code sum}; false (logged) when the API server did not. */
    private boolean patch(String sum) {
        String path = "/apis/apps/v1/namespaces/" + client.escapeString(namespace) + "/deployments/" + client.escapeString(name);
        try {
            Call call = KubeClients.call(client, "PATCH", path, new ArrayList<>(), body(sum),
                    Map.of("Accept", "application/json", "Content-Type", "application/merge-patch+json"));
            try (Response r = call.execute()) {
                if (r.isSuccessful()) {
                    LOG.log(System.Logger.Level.INFO, "kube-scheduler Deployment " + namespace + "/" + name + ": pod template annotation "
                            + ANNOTATION + " set to " + sum + " (the CA of " + secret.describe() + "); a new value restarts kube-scheduler");
                    return true;
                }
                LOG.log(System.Logger.Level.WARNING, "setting " + ANNOTATION + " of Deployment " + namespace + "/" + name + " (to restart"
                        + " kube-scheduler after a CA change) failed: HTTP " + r.code() + " " + (r.body() == null ? "" : r.body().string())
                        + (r.code() == 403 ? " (the ServiceAccount needs patch on that Deployment)" : "") + "; trying again in "
                        + RETRY_MILLIS / 1000 + " s");
                return false;
            }
        } catch (ApiException | IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "setting " + ANNOTATION + " of Deployment " + namespace + "/" + name + ": " + e
                    + "; trying again in " + RETRY_MILLIS / 1000 + " s");
            return false;
        }
    }

    /** The merge patch: that one annotation of the pod template. */
    static byte[] body(String sum) {
        return ("{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{" + new com.google.gson.JsonPrimitive(ANNOTATION) + ":"
                + new com.google.gson.JsonPrimitive(sum) + "}}}}}").getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
