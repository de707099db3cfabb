package dev.muster.server.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import dev.muster.common.tls.TlsSource;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SchedulerRolloutTest {
    private static final String DEPLOYMENT = "/apis/apps/v1/namespaces/muster-system/deployments/muster-scheduler";

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path dir;
    private static byte[] certA;
    private static byte[] certB;

    private MockKubeApi api;
    private AtomicReference<TlsSource.Snapshot> secret;
    /** What the process has loaded: the certificate of the Secret as last read, unless a test says otherwise. */
    private final AtomicReference<byte[]> serving = new AtomicReference<>();
    private final AtomicBoolean leading = new AtomicBoolean(true);
    /** Whether the process still presents the certificate from before a CA change; the release says why. */
    private final AtomicBoolean holding = new AtomicBoolean();
    private final List<String> released = new ArrayList<>();
    private final List<String> sent = new ArrayList<>();
    private SchedulerRollout rollout;

    @org.junit.jupiter.api.BeforeAll
    static void certificates() throws Exception {
        certA = java.nio.file.Files.readAllBytes(new dev.muster.common.rpc.TestPki(dir, "a").server("muster-extender").cert());
        certB = java.nio.file.Files.readAllBytes(new dev.muster.common.rpc.TestPki(dir, "b").server("muster-extender").cert());
    }

    @BeforeEach
    void setUp() {
        api = MockKubeApi.expectations();
        secret = new AtomicReference<>(snapshot("1", "CA-A"));
    }

    @AfterEach
    void tearDown() {
        if (rollout != null) {
            rollout.close();
        }
        api.close();
    }

    /** A Secret version: ca.crt {@code ca}, tls.crt a certificate of that CA. */
    private static TlsSource.Snapshot snapshot(String version, String ca) {
        return new TlsSource.Snapshot(version, Map.of("tls.crt", ca.endsWith("A") ? certA : certB, "tls.key", new byte[] {2},
                "ca.crt", ca.getBytes(StandardCharsets.US_ASCII)));
    }

    private java.security.cert.X509Certificate presented() {
        byte[] crt = serving.get() != null ? serving.get() : secret.get().data().get("tls.crt");
        try {
            return (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(crt));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private void start() {
        TlsSource source = TlsSource.of("Secret muster-system/muster-extender-tls", secret::get);
        SchedulerRollout.Serving serving = new SchedulerRollout.Serving(this::presented, holding::get, why -> {
            holding.set(false);
            released.add(why);
        });
        rollout = new SchedulerRollout(api.clients().requests(), source, "muster-system/muster-scheduler", leading::get, serving); // looks are taken by the test, one at a time
    }

    /** The checksums set so far, in order (each request the mock server received is a patch of the Deployment). */
    private List<String> checksums() throws InterruptedException {
        for (RecordedRequest r : api.takeRequests()) {
            if (r.getMethod().equals("GET")) {
                continue; // the hold's reads of the Deployment and its pods
            }
            assertThat(r.getMethod()).isEqualTo("PATCH");
            assertThat(r.getPath()).isEqualTo(DEPLOYMENT);
            assertThat(r.getHeader("Content-Type")).startsWith("application/merge-patch+json");
            var body = JsonParser.parseString(r.getBody().readUtf8()).getAsJsonObject();
            // the one annotation of the pod template, nothing else
            assertThat(body.keySet()).containsExactly("spec");
            assertThat(body.getAsJsonObject("spec").keySet()).containsExactly("template");
            var annotations = body.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("metadata").getAsJsonObject("annotations");
            assertThat(annotations.keySet()).containsExactly(SchedulerRollout.ANNOTATION);
            sent.add(annotations.get(SchedulerRollout.ANNOTATION).getAsString());
        }
        return List.copyOf(sent);
    }

    @Test
    void theChecksumIsHelmsSha256sumOfTheBase64Data() {
        // printf '%s' "$(printf 'abc\n' | base64)" | sha256sum: what the chart's checksum/extender-ca takes of the same ca.crt
        assertThat(SchedulerRollout.checksum("abc\n".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("0e81ca55405cb0f7bfd46e7dc10cbc2fe3420595512a32f9eb8232f756823f93");
    }

    @Test
    void theLeaderSetsTheChecksumAtStartAndAgainOnlyWhenTheCaChanges() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        start();
        String a = SchedulerRollout.checksum("CA-A".getBytes(StandardCharsets.US_ASCII));
        rollout.look();
        assertThat(checksums()).hasSize(1);
        assertThat(checksums()).containsExactly(a);

        secret.set(snapshot("2", "CA-A")); // a new resource version with the same CA (a leaf renewed): no restart
        rollout.look();
        assertThat(checksums()).containsExactly(a);

        secret.set(snapshot("3", "CA-B"));
        String b = SchedulerRollout.checksum("CA-B".getBytes(StandardCharsets.US_ASCII));
        rollout.look();
        assertThat(checksums()).hasSize(2);
        assertThat(checksums()).containsExactly(a, b);
    }

    @Test
    void aStandbyPatchesNothingAndSetsTheChecksumOnceItLeads() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        leading.set(false);
        start();
        secret.set(snapshot("2", "CA-B"));
        rollout.look();
        assertThat(checksums()).isEmpty();

        leading.set(true);
        rollout.look();
        assertThat(checksums()).hasSize(1);
        assertThat(checksums()).containsExactly(SchedulerRollout.checksum("CA-B".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void aNewCaIsAnnouncedOnlyOnceThisProcessHasLoadedTheSecretsCertificate() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        start();
        String a = SchedulerRollout.checksum("CA-A".getBytes(StandardCharsets.US_ASCII));
        rollout.look();
        assertThat(checksums()).hasSize(1);

        serving.set(certA); // the new material cannot be used (say, a key that does not parse): the old certificate stays
        secret.set(snapshot("2", "CA-B"));
        rollout.look();
        assertThat(checksums()).as("kube-scheduler would trust only the new CA, which nobody presents yet").containsExactly(a);

        serving.set(certB);
        rollout.look();
        assertThat(checksums()).hasSize(2);
        assertThat(checksums()).containsExactly(a, SchedulerRollout.checksum("CA-B".getBytes(StandardCharsets.US_ASCII)));
    }

    private static final String PODS = "/api/v1/namespaces/muster-system/pods?labelSelector=app.kubernetes.io%2Fcomponent%3Dscheduler%2Capp.kubernetes.io%2Fname%3Dmuster";

    private void deploymentSelectsItsPods() {
        api.server().expect().get().withPath(DEPLOYMENT).andReturn(200, "{\"spec\":{\"selector\":{\"matchLabels\":"
                + "{\"app.kubernetes.io/name\":\"muster\",\"app.kubernetes.io/component\":\"scheduler\"}}}}").once();
    }

    /** The Deployment's pods, each {@code name=checksum} (an empty checksum: no annotation), phase Running. */
    private void schedulerPods(String... pods) {
        StringBuilder items = new StringBuilder();
        for (String p : pods) {
            String[] nv = p.split("=", 2);
            String annotations = nv[1].isEmpty() ? "{}" : "{\"" + SchedulerRollout.ANNOTATION + "\":\"" + nv[1] + "\"}";
            items.append(items.isEmpty() ? "" : ",").append("{\"metadata\":{\"name\":\"").append(nv[0]).append("\",\"annotations\":")
                    .append(annotations).append("},\"status\":{\"phase\":\"Running\"}}");
        }
        api.server().expect().get().withPath(PODS).andReturn(200, "{\"items\":[" + items + "]}").once();
    }

    /**
     * After a CA change the old certificate is presented until no kube-scheduler pod that started before the change is
     * left: a pod with the old checksum or none keeps the hold, a pod of the new checksum alone ends it; the Deployment's
     * selector is read once; a standby replica ends its hold as well.
     */
    @Test
    void theOldCertificateIsPresentedUntilNoSchedulerPodOfTheOldCaIsLeftOnEveryReplica() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        leading.set(false);
        start();
        String a = SchedulerRollout.checksum("CA-A".getBytes(StandardCharsets.US_ASCII));
        String b = SchedulerRollout.checksum("CA-B".getBytes(StandardCharsets.US_ASCII));
        secret.set(snapshot("2", "CA-B"));
        holding.set(true);
        deploymentSelectsItsPods();
        schedulerPods("muster-scheduler-old=" + a);
        rollout.look();
        schedulerPods("muster-scheduler-unannotated=");
        rollout.look();
        assertThat(released).as("pods that trust only the old CA").isEmpty();

        schedulerPods("muster-scheduler-new=" + b);
        rollout.look();
        assertThat(released).singleElement().asString().contains("no pod of kube-scheduler's Deployment muster-system/muster-scheduler");
        List<String> gets = api.takeRequests().stream().filter(r -> r.getMethod().equals("GET")).map(RecordedRequest::getPath).toList();
        assertThat(gets).as("the selector read once, the pods at each look").containsExactly(DEPLOYMENT, PODS, PODS, PODS);
    }

    @Test
    void aHoldEndsAtOnceWhenThereIsNoSuchDeploymentAndIsKeptWhenItCannotBeRead() throws Exception {
        start();
        secret.set(snapshot("2", "CA-B"));
        holding.set(true);
        api.server().expect().get().withPath(DEPLOYMENT).andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        rollout.look();
        assertThat(released).as("cannot tell whether an old kube-scheduler runs").isEmpty();
        assertThat(holding).isTrue();

        api.server().expect().get().withPath(DEPLOYMENT).andReturn(404, "{\"kind\":\"Status\",\"code\":404}").once();
        rollout.look();
        assertThat(released).hasSize(1);
    }

    /** The leader announces a new CA once it has loaded its certificate, while it still presents the old one. */
    @Test
    void aNewCaIsAnnouncedWhileTheOldCertificateIsStillPresented() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        start();
        rollout.look();
        secret.set(snapshot("2", "CA-B"));
        holding.set(true);
        deploymentSelectsItsPods();
        schedulerPods("muster-scheduler-old=" + SchedulerRollout.checksum("CA-A".getBytes(StandardCharsets.US_ASCII)));
        rollout.look();
        assertThat(checksums()).endsWith(SchedulerRollout.checksum("CA-B".getBytes(StandardCharsets.US_ASCII)));
        assertThat(holding).as("the old kube-scheduler still runs").isTrue();
    }

    @Test
    void aRefusedPatchIsTriedAgain() throws Exception {
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        api.server().expect().patch().withPath(DEPLOYMENT).andReturn(200, "{}").always();
        start();
        String a = SchedulerRollout.checksum("CA-A".getBytes(StandardCharsets.US_ASCII));
        assertThat(rollout.look()).as("refused: the next look waits for the retry").isEqualTo(SchedulerRollout.RETRY_MILLIS);
        rollout.look();
        assertThat(checksums()).hasSize(2);
        rollout.look();
        assertThat(checksums()).as("the refused patch and the one that passed, then nothing: the CA did not change").containsExactly(a, a);
    }
}
