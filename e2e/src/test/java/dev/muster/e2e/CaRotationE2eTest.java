package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.kube.TlsSecretWatch;
import dev.muster.controller.rpc.ClientTls;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.controller.stream.AllocationStreamClient;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.core.time.Backoff;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A CA rotation of the chart's Helm-made certificates, with an extender and an unmodified kube-scheduler run with the
 * chart's flags and configuration while gangs keep being submitted. Each party reads its certificates from its own
 * emulated Secret volume ({@link SecretVolume}: the kubelet's atomic writer, each volume updated with its own lag — the
 * extender's slowest, 30 s, as the worst order is), the controller's stream client follows the allocation stream with
 * the controller's certificate from its volume and a new connection is opened with those files every second, and
 * kube-scheduler is restarted only when the chart's restart checksum on its pod template changes (a rollout: the new
 * pod mounts the Secret as it is then). Nobody restarts the extender.
 *
 * <p>In stages ({@code tls.rotation}: trust, use, done) every gang binds whole, kube-scheduler logs no failed extender
 * call and no connection is refused. In one step (what a renderer without lookup does) the same checks see the
 * failures: filters fail until the extender's volume has the new files, then scheduling goes on by itself. A re-issue
 * from a new CA that no render announces (cert-manager, Secrets replaced by hand) restarts kube-scheduler through the
 * extender: its leader sets the same pod template annotation.
 */
class CaRotationE2eTest extends RealClusterTest {
    private static final String SCHEDULER = "muster-rotation";
    /** Longer than every volume's lag below, as the chart's default (120 s) is longer than the kubelet's (about 60 s). */
    private static final int STEP_SECONDS = 40;
    private static final Duration EXTENDER_LAG = Duration.ofSeconds(30);
    private static final Duration CONTROLLER_LAG = Duration.ofSeconds(15);
    private static final Duration SCHEDULER_LAG = Duration.ofSeconds(3);
    /** How long an old kube-scheduler pod runs on after the apply that rolls it (a Recreate rollout: seconds). */
    private static final Duration SCHEDULER_STOP = Duration.ofSeconds(3);
    /** The controller's client certificate Secret, which the chart's controller reads with {@code --extender-tls-secret}. */
    private static final String CONTROLLER_SECRET = MusterInstall.NAMESPACE + "/muster-controller-client-tls";
    /** What kube-scheduler logs when a call to its extender fails (a refused certificate included). */
    private static final Pattern FAILED_EXTENDER_CALL = Pattern.compile("Error scheduling pod|Failed to bind|x509: |remote error: tls|tls: ");

    /**
     * The release's values back to the chart's defaults: an upgrade given no values reuses the last release's (Helm's
     * rule), so a later test's plain upgrade would otherwise render with this test's {@code tls.keepGenerated=false} and
     * make a new CA.
     */
    @AfterEach
    void chartDefaultsAgain() {
        c.chartTls().upgrade("tls.keepGenerated", "true");
    }

    @Test
    void aHelmCaRotationInStagesFailsNoFilterAndNoConnection() throws Exception {
        ChartTls chart = c.chartTls();
        String caBefore = chart.secret("muster-extender-tls").get("ca.crt");
        Outcome o = rotate(chart, () -> {
            for (String stage : List.of("trust", "use", "done")) {
                upgradeAndRollOut(chart, stage, "tls.rotation", "r1", "tls.rotationStepSeconds", String.valueOf(STEP_SECONDS));
                assertThat(chart.secretObject("muster-extender-tls").getMetadata().getAnnotations()).containsEntry("muster.dev/tls-stage", stage);
                long before = streamed.get();
                runOn(Duration.ofSeconds(STEP_SECONDS + 2), "stage " + stage + " ripens, every volume takes it up", true);
                assertThat(streamed.get()).as("the allocation stream kept delivering in stage " + stage).isGreaterThan(before);
            }
        });
        Map<String, String> after = chart.secret("muster-extender-tls");
        assertThat(after).doesNotContainKeys("next.crt", "next.key");
        assertThat(after.get("ca.crt")).isNotEqualTo(caBefore).containsOnlyOnce("BEGIN CERTIFICATE");
        assertThat(o.failedCalls()).as("kube-scheduler's failed calls to the extender").isEmpty();
        assertThat(o.refusedConnections()).as("new connections with the controller's files refused").isEmpty();
        assertThat(o.gangs()).hasSizeGreaterThan(30);
    }

    /**
     * What a renderer without Helm's lookup does (helm template, a GitOps renderer; here {@code tls.keepGenerated=false},
     * the same path: no Secret found): a new CA and certificates in one step, kube-scheduler restarted by its checksum.
     * Filters fail until the extender's volume has the new files, then scheduling goes on by itself: every gang binds
     * whole, nobody restarts the extender. The failure window is measured and printed.
     */
    @Test
    void aOneStepCaChangeRecoversByItselfOnceTheExtendersVolumeIsUpdated() throws Exception {
        ChartTls chart = c.chartTls();
        Outcome o = rotate(chart, () -> {
            upgradeAndRollOut(chart, "one step", "tls.keepGenerated", "false");
            runOn(EXTENDER_LAG.plusSeconds(25), "the extender's volume takes the new files up, gangs go on", false);
        });
        System.out.printf("e2e: one-step CA change: %d failed extender calls from %s to %s (extender volume lag %d s), %d refused controller connections%n",
                o.failedCalls().size(), o.failedCalls().isEmpty() ? "-" : klogTime(o.failedCalls().getFirst()),
                o.failedCalls().isEmpty() ? "-" : klogTime(o.failedCalls().getLast()), EXTENDER_LAG.toSeconds(), o.refusedConnections().size());
        assertThat(o.gangs()).hasSizeGreaterThan(10);
    }

    /**
     * A render without lookup again, with the chart's default {@code tls.readFromApi}: the extender and the controller
     * read their Secrets through the API ({@code --tls-secret}, {@code --extender-tls-secret}, their ServiceAccounts'
     * tokens) while their volumes still lag 30 s and 15 s, and the extender has {@code --scheduler-deployment}.
     * kube-scheduler is rolled by its checksum as the chart's Recreate strategy does it: the old pod stops
     * {@link #SCHEDULER_STOP} after the apply (the Deployment controller and the kubelet's SIGTERM), the new one then
     * starts with the Secret as it is; a stand-in pod object of the Deployment's labels and checksum lives as long as each
     * kube-scheduler process. The extender presents the old CA's certificate until the old pod is gone, so no call of
     * either kube-scheduler fails; every gang binds whole, the allocation stream keeps delivering, a controller process
     * with the chart's flags keeps writing Queue status, and nobody restarts
     * anything by hand.
     */
    @Test
    void aLookupLessRenderReadThroughTheApiFailsNoCallTheOldKubeSchedulerIsPresentedTheOldCertificate() throws Exception {
        ChartTls chart = c.chartTls();
        fromApi = true;
        schedulerPods = true;
        controllerProcess = true;
        schedulerStop = SCHEDULER_STOP;
        long[] streamedBefore = new long[1];
        double[] queueWrites = new double[2];
        Outcome o = rotate(chart, () -> {
            streamedBefore[0] = streamed.get();
            queueWrites[0] = queueStatusWrites();
            changeStarted = true;
            upgradeAndRollOut(chart, "one step, read through the API", "tls.keepGenerated", "false");
            runOn(EXTENDER_LAG.plusSeconds(25), "past every volume's lag: nothing may depend on them", true);
            queueWrites[1] = queueStatusWrites();
        });
        int oldSchedulers = schedulers.size() - 1;
        List<String> failedByOld = new ArrayList<>();
        for (KubeScheduler s : schedulers.subList(0, oldSchedulers)) {
            Files.readAllLines(s.log()).stream().filter(l -> FAILED_EXTENDER_CALL.matcher(l).find()).forEach(failedByOld::add);
        }
        System.out.printf("e2e: lookup-less render read through the API: %d failed extender calls (by the old kube-scheduler, from %s to %s,"
                        + " stopped %d s after the apply), %d refused controller connections, %d events streamed after the apply%n",
                o.failedCalls().size(), failedByOld.isEmpty() ? "-" : klogTime(failedByOld.getFirst()),
                failedByOld.isEmpty() ? "-" : klogTime(failedByOld.getLast()), SCHEDULER_STOP.toSeconds(), o.refusedConnections().size(),
                streamed.get() - streamedBefore[0]);
        o.refusedConnections().forEach(r -> System.out.printf("e2e: refused: %s%n", r));
        assertThat(extenderLog).as("the extender took the new certificate from the API, not from its volume")
                .contains("TLS files changed (Secret muster-system/muster-extender-tls, read through the API)");
        assertPresentedTheOldCertificateUntilTheOldPodWasGone();
        assertThat(o.failedCalls()).as("kube-scheduler's failed calls to the extender, the old one's included").isEmpty();
        assertThat(streamed.get()).as("the allocation stream kept delivering after the apply").isGreaterThan(streamedBefore[0]);
        assertThat(o.gangs()).hasSizeGreaterThan(10);
        System.out.printf("e2e: the controller process wrote Queue status %.0f times after the apply%n", queueWrites[1] - queueWrites[0]);
        assertThat(queueWrites[1] - queueWrites[0]).as("Queue status written by the controller process after the apply").isGreaterThan(2);
    }

    /**
     * A CA change that no Helm render announces: cert-manager re-issuing every certificate from a new CA (here a test
     * issuer writing the chart's four Secrets as cert-manager does: a new CA, new keys, {@code ca.crt} = the new CA
     * alone), or Secrets replaced by hand. The extender runs with the chart's flags, {@code --scheduler-deployment}
     * included: its leader sets the pod template annotation {@code checksum/extender-ca} of the chart's kube-scheduler
     * Deployment to the new CA's checksum. Nobody restarts anything by hand: the test plays the Deployment controller and
     * the kubelet of a Recreate rollout (hollow kubelets run no kube-scheduler): it watches that annotation and, when it
     * changes, stops the old kube-scheduler {@link #SCHEDULER_STOP} later and starts a new one with the Secret as it is
     * then (a stand-in pod object of the Deployment's labels and checksum lives as long as each kube-scheduler process).
     * The extender presents the old CA's certificate until the old pod is gone: no call of either kube-scheduler fails,
     * every gang binds whole, the allocation stream keeps delivering.
     */
    @Test
    void aCertManagerStyleReissueFromANewCaRestartsKubeSchedulerThroughTheExtender() throws Exception {
        ChartTls chart = c.chartTls();
        fromApi = true;
        rolloutByExtender = true;
        schedulerPods = true;
        controllerProcess = true;
        schedulerStop = SCHEDULER_STOP;
        TestIssuer issuer = new TestIssuer(c, "muster-reissued-ca-" + System.currentTimeMillis());
        long[] streamedBefore = new long[1];
        long[] reissued = new long[2];
        double[] queueWrites = new double[2];
        Outcome o = rotate(chart, () -> {
            streamedBefore[0] = streamed.get();
            queueWrites[0] = queueStatusWrites();
            reissued[0] = System.nanoTime();
            changeStarted = true;
            issuer.reissue(MusterInstall.NAMESPACE, ChartTls.SECRETS); // the extender's first: the worst order for kube-scheduler
            reissued[1] = System.nanoTime();
            runOn(EXTENDER_LAG.plusSeconds(25), "past every volume's lag: nothing may depend on them", true);
            queueWrites[1] = queueStatusWrites();
        });
        int oldSchedulers = schedulers.size() - 1;
        List<String> failedByOld = new ArrayList<>();
        for (KubeScheduler s : schedulers.subList(0, oldSchedulers)) {
            Files.readAllLines(s.log()).stream().filter(l -> FAILED_EXTENDER_CALL.matcher(l).find()).forEach(failedByOld::add);
        }
        String newSum = dev.muster.server.rollout.SchedulerRollout.checksum(issuer.caPem().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        System.out.printf("e2e: cert-manager-style re-issue from a new CA: %d failed extender calls (by the old kube-scheduler, from %s to %s,"
                        + " stopped %d s after the annotation changed), kube-scheduler restarted %.1f s after the Secrets were written,"
                        + " %d refused controller connections, %d events streamed after the re-issue%n",
                o.failedCalls().size(), failedByOld.isEmpty() ? "-" : klogTime(failedByOld.getFirst()),
                failedByOld.isEmpty() ? "-" : klogTime(failedByOld.getLast()), SCHEDULER_STOP.toSeconds(),
                restartedAt.isEmpty() ? -1.0 : (restartedAt.getFirst() - reissued[1]) / 1e9, o.refusedConnections().size(),
                streamed.get() - streamedBefore[0]);
        o.refusedConnections().forEach(r -> System.out.printf("e2e: refused: %s%n", r));
        assertThat(chart.schedulerPodAnnotation(ANNOTATION)).as("the extender set the new CA's checksum on kube-scheduler's pod template")
                .isEqualTo(newSum);
        assertThat(extenderLog).contains(ANNOTATION + " set to " + newSum);
        assertThat(restartedAt).as("kube-scheduler restarted once, by the extender's annotation (not at the extender's start)").hasSize(1);
        assertThat(chart.secret("muster-scheduler-client-tls").get("ca.crt")).isEqualTo(issuer.caPem());
        assertPresentedTheOldCertificateUntilTheOldPodWasGone();
        assertThat(o.failedCalls()).as("kube-scheduler's failed calls to the extender, the old one's included").isEmpty();
        assertThat(streamed.get()).as("the allocation stream kept delivering after the re-issue").isGreaterThan(streamedBefore[0]);
        assertThat(o.gangs()).hasSizeGreaterThan(10);
        List<String> queueAfter = queueAllocated.stream().filter(e -> e.getKey() - reissued[1] > 0).map(Map.Entry::getValue).toList();
        System.out.printf("e2e: the controller process wrote Queue status %.0f times after the re-issue; Queue default's status.allocated,"
                + " sampled every 500 ms, changed %d times: %s%n", queueWrites[1] - queueWrites[0], queueAfter.size(), queueAfter);
        // allocated flips between two values as gangs come and go, so samples may miss the flips: the writes are counted
        assertThat(queueWrites[1] - queueWrites[0]).as("Queue status written by the controller process after the re-issue").isGreaterThan(2);
        assertThat(controllerLog).as("the controller process started with --extender-tls-secret and no TLS files").contains("muster-controller started");
    }

    /** What a rotation left: the gangs submitted, kube-scheduler's failed calls to the extender, refused controller connections. */
    private record Outcome(List<String> gangs, List<String> failedCalls, List<String> refusedConnections) {}

    /** A rotation's steps; each lets the rotation run on for a while ({@link #runOn}). */
    private interface Rotation {
        void run() throws Exception;
    }

    /**
     * Lets the rotation run on for {@code d} while gangs keep being submitted, checking every second that the extender
     * still runs and, with {@code noFailedCall}, that no kube-scheduler has logged a failed call to it.
     */
    private void runOn(Duration d, String what, boolean noFailedCall) {
        Awaitility.await(what + (noFailedCall ? ", no failed extender call" : "") + ", the extender running")
                .during(d).atMost(d.plusSeconds(10)).pollInterval(Duration.ofSeconds(1))
                .until(() -> extenderRotation.healthy() && (!noFailedCall || failedCalls().isEmpty()));
    }

    /** The lines of every kube-scheduler's log so far that are failed calls to the extender. */
    private List<String> failedCalls() throws java.io.IOException {
        List<String> failed = new ArrayList<>();
        for (KubeScheduler s : schedulers) {
            Files.readAllLines(s.log()).stream().filter(l -> FAILED_EXTENDER_CALL.matcher(l).find()).forEach(failed::add);
        }
        return failed;
    }

    private final AtomicLong streamed = new AtomicLong();
    private final List<KubeScheduler> schedulers = new CopyOnWriteArrayList<>();
    /** When kube-scheduler was restarted by the annotation the extender sets ({@link System#nanoTime()}). */
    private final List<Long> restartedAt = new CopyOnWriteArrayList<>();
    /** The pod template annotation both Helm and the extender set to the CA's checksum. */
    private static final String ANNOTATION = "checksum/extender-ca";
    /** The extender restarts kube-scheduler itself (--scheduler-deployment): the test rolls it when the annotation changes. */
    private boolean rolloutByExtender;
    /**
     * The extender has --scheduler-deployment, and each kube-scheduler process has a stand-in pod object of the chart's
     * Deployment (its labels, the checksum it started with), made before the process starts and deleted once it stopped,
     * as a Recreate rollout's pods are: the extender tells from them when no kube-scheduler of the old CA is left.
     */
    private boolean schedulerPods;
    /** The stand-in pod of each kube-scheduler in {@link #schedulers}, in the same order. */
    private final List<String> standIns = new CopyOnWriteArrayList<>();
    /** The test's rotation began (Secrets written or a render applied). */
    private volatile boolean changeStarted;
    /** The first kube-scheduler stopped (set before its stand-in pod is deleted). */
    private volatile boolean firstSchedulerGone;
    /**
     * New TLS connections opened as the first kube-scheduler would open them (its certificate and CA file as they were at
     * its start) every 250 ms: refused while it still ran, after the rotation began, accepted then, refused once it was gone.
     */
    private final List<String> oldTrustRefusedWhileItRan = new CopyOnWriteArrayList<>();
    private final AtomicLong oldTrustAcceptedAfterTheChange = new AtomicLong();
    private final AtomicLong oldTrustRefusedOnceGone = new AtomicLong();
    /**
     * A controller process from its jar with the chart's flags writes Queue status from the rotating extender's stream
     * (the cluster's own controller is frozen meanwhile, so it is the only writer).
     */
    private boolean controllerProcess;
    /** Queue default's status.allocated each time it changed while the rotation ran, with when ({@link System#nanoTime()}). */
    private final List<Map.Entry<Long, String>> queueAllocated = new CopyOnWriteArrayList<>();
    private volatile MusterProcess controllerRotation; // the controller process of the running rotation, or null
    private volatile MusterProcess extenderRotation; // the extender of the running rotation
    /** The controller process's log once the rotation is over. */
    private String controllerLog;
    private final List<SecretVolume> volumes = new ArrayList<>();
    private Path dir;
    private Path chartConfig;
    private int http;
    private volatile String checksum;
    /** The extender and the controller read their Secrets through the API (the chart's tls.readFromApi). */
    private boolean fromApi;
    /** How long an old kube-scheduler runs on after the upgrade that changed its checksum. */
    private Duration schedulerStop = Duration.ZERO;
    private TlsSecretWatch controllerSecret;
    /** The extender's log once the rotation is over. */
    private String extenderLog;

    /**
     * Runs an extender with the chart's flags, kube-scheduler with the chart's configuration and the controller's
     * stream client, each on its own volume; submits gangs and opens connections with the controller's files while
     * {@code rotation} runs; then waits until every gang submitted is bound whole.
     */
    private Outcome rotate(ChartTls chart, Rotation rotation) throws Exception {
        dir = Files.createTempDirectory("muster-rotation-");
        chartConfig = chart.schedulerConfig(dir.resolve("chart-scheduler-config.yaml"));
        http = ControlPlane.freePort();
        int grpc = ControlPlane.freePort();
        ScheduledExecutorService background = Executors.newScheduledThreadPool(4);
        List<String> refusedConnections = new CopyOnWriteArrayList<>();
        List<String> gangs = new CopyOnWriteArrayList<>();
        SecretVolume ext = mount("muster-extender-tls", dir.resolve("extender"), EXTENDER_LAG);
        SecretVolume ctl = mount("muster-controller-client-tls", dir.resolve("controller"), CONTROLLER_LAG);
        List<String> extenderArgs = new ArrayList<>(chart.extenderArgs(ext.dir(), http, grpc, SCHEDULER));
        if (fromApi) { // the chart's flags: the extender's and the controller's own Secrets, with their ServiceAccounts' tokens
            extenderArgs.add(chart.extenderFlag("--tls-secret="));
            if (rolloutByExtender || schedulerPods) {
                extenderArgs.add(chart.extenderFlag("--scheduler-deployment="));
            }
            KubeClients controller = KubeClients.fromKubeconfig(c.install.kubeconfigFor("controller"));
            controllerSecret = TlsSecretWatch.start(controller.requests(), controller.watches(), CONTROLLER_SECRET);
        }
        MusterProcess controller = null;
        try (MusterProcess extender = MusterProcess.start("extender-rotation", MusterProcess.Program.EXTENDER, c.repo, c.version,
                extenderArgs, dir, ControlPlane.freePort());
             AllocationStreamClient stream = new AllocationStreamClient("127.0.0.1:" + grpc,
                     target -> GrpcChannels.open(target, Optional.of(controllerTls(ctl)), ChartTls.SERVICE), counting(streamed),
                     new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2)))) {
            checksum = chart.schedulerPodAnnotation(ANNOTATION);
            schedulers.add(startScheduler(chart));
            if (schedulerPods) { // the files the first kube-scheduler started with, kept as they are
                Path old = Files.createDirectories(dir.resolve("first-scheduler-files"));
                for (String f : List.of("ca.crt", "tls.crt", "tls.key")) {
                    Files.copy(dir.resolve("scheduler-0").resolve(f), old.resolve(f));
                }
                javax.net.ssl.SSLContext asTheFirst = new dev.muster.common.tls.CertificateFiles(old.resolve("tls.crt"), old.resolve("tls.key"),
                        old.resolve("ca.crt")).context(false);
                background.scheduleWithFixedDelay(() -> connectAsTheFirstScheduler(asTheFirst), 0, 250, TimeUnit.MILLISECONDS);
            }
            if (rolloutByExtender) { // the extender sets the annotation at start: to what Helm wrote for the same CA
                Awaitility.await("the extender set " + ANNOTATION).atMost(Duration.ofSeconds(60))
                        .until(() -> Files.readString(extender.log()).contains(ANNOTATION + " set to "));
                assertThat(chart.schedulerPodAnnotation(ANNOTATION)).as("the extender's checksum of the CA Helm wrote is Helm's").isEqualTo(checksum);
                background.scheduleWithFixedDelay(() -> rollOnAnnotation(chart), 0, 200, TimeUnit.MILLISECONDS);
            }
            stream.start();
            if (controllerProcess) {
                controller = startController(chart, grpc);
                controllerRotation = controller;
                background.scheduleWithFixedDelay(this::sampleQueue, 0, 500, TimeUnit.MILLISECONDS);
            }
            // a gang of two every 2 s, each deleted once bound; a new connection with the controller's files every second
            background.scheduleWithFixedDelay(() -> submitGang(gangs), 0, 2, TimeUnit.SECONDS);
            background.scheduleWithFixedDelay(() -> connectAsTheController(grpc, ctl, refusedConnections), 1, 1, TimeUnit.SECONDS);
            Awaitility.await("the stream connected").atMost(Duration.ofSeconds(60)).until(stream::isConnected);
            long pid = extender.pid();
            extenderRotation = extender;

            rotation.run();

            extenderLog = Files.readString(extender.log());
            controllerLog = controller == null ? null : Files.readString(controller.log());
            assertThat(extenderLog).contains("TLS files changed");
            background.shutdown(); // what runs finishes (a gang half deleted would never be whole), nothing starts again
            background.awaitTermination(30, TimeUnit.SECONDS);
            for (String g : gangs) {
                Awaitility.await("gang " + g + " bound whole").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                        .until(() -> c.admin.bound(ns, g + "-").size() == 2
                                || c.admin.pods(ns).stream().noneMatch(p -> p.getMetadata().getName().startsWith(g + "-")));
            }
            assertThat(extender.pid()).as("nobody restarted the extender").isEqualTo(pid);
            List<String> failed = failedCalls();
            System.out.printf("e2e: CA rotated: %d gangs submitted, %d kube-schedulers, %d events streamed, %d failed extender calls, %d refused controller connections%n",
                    gangs.size(), schedulers.size(), streamed.get(), failed.size(), refusedConnections.size());
            return new Outcome(List.copyOf(gangs), failed, List.copyOf(refusedConnections));
        } finally {
            background.shutdownNow();
            if (controller != null) {
                controller.close();
            }
            if (controllerProcess) {
                c.controller.thaw(); // frozen by startController (a process that was not frozen goes on as it was)
            }
            if (controllerSecret != null) {
                controllerSecret.close();
            }
            for (KubeScheduler s : schedulers) {
                s.close();
            }
            standIns.forEach(this::deleteStandIn);
            volumes.forEach(SecretVolume::close);
            if (!Boolean.getBoolean("muster.e2e.keep")) {
                for (SecretVolume v : volumes) {
                    deleteTree(v.dir()); // private keys: nothing stays behind unless asked to
                }
            }
        }
    }

    private static void deleteTree(Path d) throws java.io.IOException {
        try (var paths = Files.walk(d)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** {@code helm upgrade} with {@code values}; when the chart's restart checksum changed, a rollout of kube-scheduler. */
    private void upgradeAndRollOut(ChartTls chart, String stage, String... values) throws java.io.IOException {
        chart.upgrade(values);
        String now = chart.schedulerPodAnnotation("checksum/extender-ca");
        if (!now.equals(checksum)) { // the new pod mounts the Secret as it is now
            checksum = now;
            try {
                rollScheduler(chart);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            System.out.printf("e2e: %s: kube-scheduler restarted by its checksum%n", stage);
        }
    }

    /**
     * The Deployment controller and kubelet of a Recreate rollout: when the pod template annotation changed, the old
     * kube-scheduler stops {@link #schedulerStop} later and a new one starts with the Secret as it is then.
     */
    private void rollOnAnnotation(ChartTls chart) {
        try {
            String now = chart.schedulerPodAnnotation(ANNOTATION);
            if (now == null || now.equals(checksum)) {
                return;
            }
            checksum = now;
            rollScheduler(chart);
            restartedAt.add(System.nanoTime());
            System.out.printf("e2e: kube-scheduler restarted by the annotation the extender set (%s)%n", now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            System.out.printf("e2e: rolling kube-scheduler: %s%n", e);
        }
    }

    /**
     * The controller from its jar with the chart's flags for {@code tls.readFromApi}, its stream to this test's extender
     * (the Service name the extender's certificate names resolves to 127.0.0.1 in its JVM). Its {@code --extender-tls-*}
     * files are empty: with {@code --extender-tls-secret} their names are keys of its Secret, read through the API
     * with its ServiceAccount's token, so a controller that starts and writes status shows that wiring. The cluster's own controller is
     * frozen until this one stops.
     */
    private MusterProcess startController(ChartTls chart, int grpc) throws java.io.IOException {
        Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1 " + ChartTls.SERVICE + " localhost\n");
        Path absent = Files.createDirectories(dir.resolve("empty-volume"));
        for (String f : List.of("ca.crt", "tls.crt", "tls.key")) {
            Files.writeString(absent.resolve(f), ""); // no PEM in them: whatever the stream uses came from the Secret
        }
        c.controller.freeze();
        MusterProcess p = MusterProcess.start("controller-rotation", MusterProcess.Program.CONTROLLER.jar(c.repo, c.version),
                java.util.stream.Stream.concat(MusterProcess.Program.CONTROLLER.jvm().stream(), java.util.stream.Stream.of("-Djdk.net.hosts.file=" + hosts)).toList(), List.of("--kubeconfig=" + c.install.kubeconfigFor("controller"),
                        "--extender-address=" + ChartTls.SERVICE + ":" + grpc, "--grpc-port=" + ControlPlane.freePort(), "--leader-elect=false",
                        "--extender-tls-ca-file=" + absent.resolve("ca.crt"), "--extender-tls-cert-file=" + absent.resolve("tls.crt"),
                        "--extender-tls-key-file=" + absent.resolve("tls.key"), chart.flag("controller", "--extender-tls-secret=")),
                dir, ControlPlane.freePort());
        return p;
    }

    /** Queue status writes the controller process made so far (0 without one). */
    private double queueStatusWrites() {
        MusterProcess p = controllerRotation;
        return p == null ? 0 : p.counter("muster_controller_status_writes_total", "kind", "queue");
    }

    /** Records Queue default's status.allocated when it changed. */
    private void sampleQueue() {
        try {
            String now = String.valueOf(Kube.status(c.admin.queueObject("default")).get("allocated"));
            if (queueAllocated.isEmpty() || !queueAllocated.getLast().getValue().equals(now)) {
                queueAllocated.add(Map.entry(System.nanoTime(), now));
            }
        } catch (RuntimeException e) {
            System.out.printf("e2e: reading Queue default: %s%n", e);
        }
    }

    /** The time of a klog line ({@code E1127 11:17:21.905123 ...}). */
    private static String klogTime(String line) {
        String[] w = line.split(" ");
        return w.length > 1 ? w[1] : line;
    }

    private SecretVolume mount(String secret, Path at, Duration lag) throws java.io.IOException {
        SecretVolume v = SecretVolume.mount(c.admin, MusterInstall.NAMESPACE, secret, at, lag);
        volumes.add(v);
        return v;
    }

    /**
     * A Recreate rollout of kube-scheduler: the old pod runs on for {@link #schedulerStop}, stops and is gone (its
     * stand-in deleted), then the new one starts with the Secret as it is.
     */
    private void rollScheduler(ChartTls chart) throws java.io.IOException, InterruptedException {
        KubeScheduler old = schedulers.getLast();
        if (schedulerStop.isPositive()) { // the old pod runs on this long, and keeps serving throughout
            Awaitility.await("the old kube-scheduler runs on for " + schedulerStop).during(schedulerStop).atMost(schedulerStop.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(500)).until(old::ready);
        }
        old.close();
        if (schedulerPods) {
            firstSchedulerGone = true;
            deleteStandIn(standIns.getLast());
        }
        schedulers.add(startScheduler(chart));
    }

    /** A new TLS connection to the extender's HTTPS port with the first kube-scheduler's files as they were at its start. */
    private void connectAsTheFirstScheduler(javax.net.ssl.SSLContext ctx) {
        if (!changeStarted) {
            return;
        }
        String refused = null;
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", http)) {
            socket.setSoTimeout(5000);
            socket.startHandshake();
        } catch (java.io.IOException e) {
            refused = e.toString();
        }
        boolean gone = firstSchedulerGone;
        if (refused == null) {
            oldTrustAcceptedAfterTheChange.incrementAndGet();
        } else if (gone) {
            oldTrustRefusedOnceGone.incrementAndGet();
        } else {
            oldTrustRefusedWhileItRan.add(refused);
        }
    }

    /**
     * The extender said it kept the old CA's certificate for kube-scheduler and switched once the old pod was gone; a
     * new connection the old kube-scheduler would have opened meanwhile was accepted, one with the same files after it
     * was gone was refused (the extender then presents the new CA's certificate).
     */
    private void assertPresentedTheOldCertificateUntilTheOldPodWasGone() {
        System.out.printf("e2e: new connections with the first kube-scheduler's files: %d accepted after the change, %d refused while it ran,"
                + " %d refused once it was gone%n", oldTrustAcceptedAfterTheChange.get(), oldTrustRefusedWhileItRan.size(), oldTrustRefusedOnceGone.get());
        assertThat(oldTrustRefusedWhileItRan).as("new connections of the old kube-scheduler refused while it ran").isEmpty();
        assertThat(oldTrustAcceptedAfterTheChange.get()).isPositive();
        assertThat(oldTrustRefusedOnceGone.get()).as("the old CA's certificate is no longer presented once it is gone").isPositive();
        assertThat(extenderLog).contains("servers keep presenting certificate serial")
                .contains("of the new CA to new connections").contains("no pod of kube-scheduler's Deployment " + MusterInstall.NAMESPACE
                        + "/muster-scheduler started before the CA change any more");
    }

    /** A pod object standing in for kube-scheduler process {@code n}: the Deployment's labels, the checksum it starts with, never scheduled. */
    private void createStandIn(int n) {
        var d = Kube.call("read the scheduler Deployment", () -> new io.kubernetes.client.openapi.apis.AppsV1Api(c.cp.adminClient())
                .readNamespacedDeployment("muster-scheduler", MusterInstall.NAMESPACE).execute());
        String name = "muster-scheduler-stand-in-" + dir.getFileName().toString().replaceAll("[^a-z0-9]", "") + "-" + n;
        var pod = new io.kubernetes.client.openapi.models.V1Pod()
                .metadata(new io.kubernetes.client.openapi.models.V1ObjectMeta().name(name).namespace(MusterInstall.NAMESPACE)
                        .labels(d.getSpec().getSelector().getMatchLabels()).annotations(Map.of(ANNOTATION, checksum)))
                .spec(new io.kubernetes.client.openapi.models.V1PodSpec()
                        .serviceAccountName(d.getSpec().getTemplate().getSpec().getServiceAccountName()).automountServiceAccountToken(false).overhead(null)
                        .schedulingGates(List.of(new io.kubernetes.client.openapi.models.V1PodSchedulingGate().name("e2e.muster.dev/stand-in")))
                        .containers(List.of(new io.kubernetes.client.openapi.models.V1Container().name("kube-scheduler").image("kube-scheduler"))));
        Kube.call("create " + name, () -> new io.kubernetes.client.openapi.apis.CoreV1Api(c.cp.adminClient())
                .createNamespacedPod(MusterInstall.NAMESPACE, pod).execute());
        standIns.add(name);
    }

    private void deleteStandIn(String name) {
        try {
            new io.kubernetes.client.openapi.apis.CoreV1Api(c.cp.adminClient()).deleteNamespacedPod(name, MusterInstall.NAMESPACE)
                    .gracePeriodSeconds(0).execute();
        } catch (io.kubernetes.client.openapi.ApiException e) {
            if (e.getCode() != 404) {
                throw new IllegalStateException("delete " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
            }
        }
    }

    /** A kube-scheduler pod: its own volume of the scheduler's Secret, mounted as it is now (and its stand-in pod object). */
    private KubeScheduler startScheduler(ChartTls chart) throws java.io.IOException {
        int n = schedulers.size();
        if (schedulerPods) {
            createStandIn(n);
        }
        SecretVolume v = mount("muster-scheduler-client-tls", dir.resolve("scheduler-" + n), SCHEDULER_LAG);
        return chart.kubeScheduler(chartConfig, http, v.dir(), SCHEDULER, "kube-scheduler-" + dir.getFileName() + "-" + n);
    }

    /** The controller's TLS as the chart passes it: the files of its volume, read from its Secret through the API with tls.readFromApi. */
    private ClientTls controllerTls(SecretVolume ctl) {
        ClientTls files = new ClientTls(ctl.file("ca.crt"), ctl.file("tls.crt"), ctl.file("tls.key"));
        return controllerSecret == null ? files : files.from(controllerSecret);
    }

    /** A gang of two small pods; bound gangs are deleted so the nodes never fill. */
    private void submitGang(List<String> gangs) {
        try {
            for (String g : gangs) {
                if (c.admin.bound(ns, g + "-").size() == 2) {
                    c.admin.deleteNow(ns, g + "-0");
                    c.admin.deleteNow(ns, g + "-1");
                }
            }
            String g = "g" + gangs.size();
            c.admin.podGroup(ns, g, 2, "default", Map.of());
            c.admin.pod(ns, g + "-0", g, "100m", "128Mi", SCHEDULER, null);
            c.admin.pod(ns, g + "-1", g, "100m", "128Mi", SCHEDULER, null);
            gangs.add(g);
        } catch (RuntimeException e) {
            System.out.printf("e2e: submitting a gang: %s%n", e);
        }
    }

    /** A new TLS connection to the extender's gRPC port with the controller's files as they are now. */
    private void connectAsTheController(int grpc, SecretVolume ctl, List<String> refused) {
        ManagedChannel ch = GrpcChannels.open("127.0.0.1:" + grpc, Optional.of(controllerTls(ctl)), ChartTls.SERVICE);
        try {
            HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the test is over: its background work was stopped mid-call, nothing was refused
            }
            refused.add(java.time.Instant.now() + " " + e);
        } finally {
            ch.shutdownNow();
        }
    }

    private static AllocationListener counting(AtomicLong streamed) {
        return new AllocationListener() {
            @Override
            public void onSnapshot(AllocationSnapshot snapshot) {
                streamed.incrementAndGet();
            }

            @Override
            public void onEvent(SequencedEvent event) {
                streamed.incrementAndGet();
            }
        };
    }
}
