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
import java.util.List;
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
 * once this process has loaded the Secret's certificate ({@link Serving#loaded}): a Secret whose material cannot be
 * used (a key or certificate that does not parse) keeps the old certificate in use, and a kube-scheduler restarted to
 * trust only the new CA would then refuse it.
 *
 * <p>Until the old kube-scheduler is gone, the extender keeps presenting the certificate of the old CA to it
 * ({@link dev.muster.common.tls.CertificateFiles#holdOnCaChange}): the old process trusts only that CA. Every replica
 * (the leader or not: kube-scheduler's Service reaches any of them) looks at the Deployment's pods while it holds
 * ({@link SchedulerPods}) and {@linkplain Serving#release releases} the hold once no pod of it carries another checksum
 * than the new CA's; with the chart's {@code Recreate} strategy the new kube-scheduler starts after that, trusting the
 * new CA, and is presented the new certificate.
 *
 * <p>The checksum is the one the chart's Helm route writes into the same annotation (SHA-256 of the base64 text of
 * {@code ca.crt}, Helm's {@code sha256sum} of the Secret's data): after a {@code helm upgrade} that changed the CA,
 * Helm and the extender set the same value and kube-scheduler rolls once.
 *
 * <p>RBAC: {@code get} and {@code patch} on that one Deployment ({@code resourceNames}), {@code list} on pods. A
 * failed patch is said in the log and tried again every {@link #RETRY_MILLIS} ms; pods that cannot be listed keep the
 * hold (it ends by itself after its longest).
 *
 * <p>Threading: one daemon thread owns {@code patched}, {@code waitedFor}, {@code unreadSaid} and the {@link SchedulerPods};
 * it looks at the Secret's snapshot (a volatile read) every {@link #LOOK_EVERY_MILLIS} ms and asks {@code leading}
 * right before each patch.
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
    private final Serving serving;
    private final SchedulerPods pods;
    private final Thread thread;
    private String waitedFor; // the checksum last said to wait for this process's certificate; owned by the thread
    private boolean unreadSaid; // that the Deployment's pods could not be read was said during this hold; owned by the thread
    private volatile boolean closed;
    private String patched; // the checksum this leader last set; owned by the thread

    /**
     * The certificate this process presents to kube-scheduler: what it has loaded, whether it still presents the one
     * from before a CA change, and ending that.
     */
    public record Serving(java.util.function.Supplier<java.security.cert.X509Certificate> loaded, BooleanSupplier holding,
                          java.util.function.Consumer<String> release) {
        public static Serving of(dev.muster.common.tls.CertificateFiles files) {
            return new Serving(files::loaded, files::holding, files::release);
        }
    }

    /**
     * @param deployment {@code NAMESPACE/NAME} of kube-scheduler's Deployment
     * @param leading    asked right before every patch: a process that does not lead patches nothing
     * @param serving    the certificate this process presents to kube-scheduler
     */
    public SchedulerRollout(ApiClient client, TlsSource secret, String deployment, BooleanSupplier leading, Serving serving) {
        String[] nn = TlsSecretWatch.parse("scheduler-deployment", deployment);
        this.client = client;
        this.secret = secret;
        this.namespace = nn[0];
        this.name = nn[1];
        this.leading = leading;
        this.serving = serving;
        this.pods = new SchedulerPods(client, nn[0], nn[1]);
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
     * One look (on the rollout's thread, or a test's): ends a hold of the old certificate once no kube-scheduler pod of
     * the old CA is left, and patches the annotation when this leader has not set the Secret's CA's checksum yet and has
     * loaded its certificate. Returns how long to wait before the next look, in milliseconds.
     */
    long look() {
        TlsSource.Snapshot s = secret.current();
        byte[] ca = s == null ? null : s.data().get("ca.crt");
        String sum = ca == null ? null : checksum(ca);
        if (sum != null && serving.holding().getAsBoolean()) {
            releaseOnceTheOldPodsAreGone(sum);
        } else {
            unreadSaid = false;
        }
        if (!leading.getAsBoolean()) {
            patched = null; // a next term sets it again
            return LOOK_EVERY_MILLIS;
        }
        if (sum == null) {
            return LOOK_EVERY_MILLIS;
        }
        if (sum.equals(patched) || !loaded(s.data().get("tls.crt"), sum)) {
            return LOOK_EVERY_MILLIS;
        }
        if (!patch(sum)) {
            return RETRY_MILLIS;
        }
        patched = sum;
        return LOOK_EVERY_MILLIS;
    }

    /** Ends the hold when no pod of kube-scheduler's Deployment carries another checksum than {@code sum}. */
    private void releaseOnceTheOldPodsAreGone(String sum) {
        List<String> older;
        try {
            older = pods.olderThan(sum);
        } catch (IOException | RuntimeException e) {
            if (!unreadSaid) {
                unreadSaid = true;
                LOG.log(System.Logger.Level.WARNING, "the pods of kube-scheduler's Deployment " + namespace + "/" + name + " cannot be read ("
                        + e.getMessage() + "); the old certificate is presented until they can, or for the hold's longest");
            }
            return;
        }
        if (older.isEmpty()) {
            serving.release().accept("no pod of kube-scheduler's Deployment " + namespace + "/" + name + " started before the CA change any more");
        }
    }

    /** Whether this process has loaded the first certificate of {@code crt} (said once per checksum when it has not). */
    private boolean loaded(byte[] crt, String sum) {
        boolean yes;
        try {
            yes = crt != null && java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(crt)).equals(serving.loaded().get());
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            yes = false;
        }
        if (!yes && !sum.equals(waitedFor)) {
            waitedFor = sum;
            LOG.log(System.Logger.Level.WARNING, "the CA in " + secret.describe() + " changed, but this process has not loaded that Secret's"
                    + " certificate (yet, or it cannot be used: see the TLS log lines); kube-scheduler is restarted once it has");
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
