package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Eviction;
import io.kubernetes.client.openapi.models.V1MatchResources;
import io.kubernetes.client.openapi.models.V1NamedRuleWithOperations;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Validation;
import io.kubernetes.client.openapi.models.V1ValidatingAdmissionPolicy;
import io.kubernetes.client.openapi.models.V1ValidatingAdmissionPolicyBinding;
import io.kubernetes.client.openapi.models.V1ValidatingAdmissionPolicyBindingSpec;
import io.kubernetes.client.openapi.models.V1ValidatingAdmissionPolicySpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The leader dies between the first and the last eviction of a victim gang, and its successor finishes what it began.
 * A gang of 7 needs the room of one whole gang of 8 (the cluster is full of two). A ValidatingAdmissionPolicy made by
 * the test refuses the real (not the dry-run) eviction of one pod of the victim gang, so the leader's decision passes
 * its dry runs, is recorded, and evicts 7 of the gang's 8 pods; the leader is killed (SIGKILL) while the gang is half
 * evicted. A standby replica of the extender (its own token of the chart's ServiceAccount, the same Lease) takes the
 * Lease, the policy goes, and the new leader reads the recorded decision: it keeps the room for the preemptor, which
 * runs whole, and evicts the last pod, so the victim gang is not left running one pod of its eight. No eviction is
 * wasted, none is made twice: the new leader evicts exactly the one pod left, and the victim's Job's new pods never
 * take the freed room while the preemptor waits. (Without the record, a new leader gave that room to the victim's new
 * pods, whole with the pod left, and then evicted the victim a second time for the preemptor.)
 */
class PreemptionLeaderChangeE2eTest extends ControllersClusterTest {
    private static final String LEASE = "muster-extender";

    @Test
    void aLeaderKilledMidUnitIsFinishedByTheNextLeaderAndThePreemptorRunsWhole() throws Exception {
        c.workloads.priorityClass(PreemptionE2eTest.LOW, 10, "PreemptLowerPriority");
        c.workloads.priorityClass(PreemptionE2eTest.HIGH, 1000, "PreemptLowerPriority");
        gangJob("low-a", 8, 16, PreemptionE2eTest.LOW);
        c.awaitRunning(ns, "job=low-a", 8);
        gangJob("low-b", 8, 16, PreemptionE2eTest.LOW);
        c.awaitRunning(ns, "job=low-b", 8);
        Map<String, Set<String>> low = Map.of("low-a", c.uids(ns, "job=low-a"), "low-b", c.uids(ns, "job=low-b"));
        // low-b started last: the decision takes it whole; one of its pods refuses real evictions for now
        V1Pod stuck = c.admin.pods(ns, "job=low-b").stream().min(Comparator.comparing(p -> p.getMetadata().getName())).orElseThrow();
        String policy = "muster-e2e-deny-eviction-" + ns;
        AdmissionregistrationV1Api admission = new AdmissionregistrationV1Api(c.admin.core().getApiClient());
        denyRealEvictions(admission, policy, stuck.getMetadata().getName());

        Path dir = Files.createTempDirectory("muster-e2e-preemption-leader-");
        String version = System.getProperty("muster.version", "0.1.0-SNAPSHOT");
        MusterProcess standby = MusterProcess.start("extender-standby", MusterProcess.Program.EXTENDER, E2eCluster.REPO, version, List.of(
                "--kubeconfig=" + c.install.kubeconfigFor("extender", "extender-standby"), "--http-port=" + ControlPlane.freePort(),
                "--grpc-port=" + ControlPlane.freePort(), "--lease-namespace=" + MusterInstall.NAMESPACE, "--insecure-unauthenticated-verbs"),
                dir, ControlPlane.freePort());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try {
            standby.awaitReady();
            assertThat(holder()).as("the cluster's extender leads").doesNotStartWith("extender-standby_");
            Map<String, Set<Integer>> seen = new ConcurrentHashMap<>();
            Set<String> lowBRemade = ConcurrentHashMap.newKeySet(); // low-b's new pods seen holding room before big ran
            sampler.scheduleWithFixedDelay(() -> {
                for (var e : low.entrySet()) {
                    seen.computeIfAbsent(e.getKey(), k -> ConcurrentHashMap.newKeySet()).add(c.survivors(ns, e.getValue()).size());
                }
                if (c.running(ns, "job=big") < 7) {
                    c.admin.pods(ns, "job=low-b").stream().filter(ControllersCluster::holdsRoom)
                            .filter(p -> !low.get("low-b").contains(p.getMetadata().getUid())).forEach(p -> lowBRemade.add(p.getMetadata().getName()));
                }
            }, 0, 100, TimeUnit.MILLISECONDS);

            gangJob("big", 7, 7, PreemptionE2eTest.HIGH);
            Awaitility.await("7 of low-b's pods evicted, the stuck one refused").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> c.survivors(ns, low.get("low-b")).equals(Set.of(stuck.getMetadata().getUid())));
            c.extender.kill9(); // between the first and the last eviction of the unit
            Awaitility.await("the standby takes the Lease").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions().until(() -> holder().startsWith("extender-standby_"));
            Kube.call("delete policy binding", () -> admission.deleteValidatingAdmissionPolicyBinding(policy).execute());
            Kube.call("delete policy", () -> admission.deleteValidatingAdmissionPolicy(policy).execute());
            // kube-scheduler's extender address is the cluster's extender: started again, it is a standby that forwards
            c.extender.restart();

            c.awaitRunning(ns, "job=big", 7);
            Awaitility.await("the new leader finishes the half-evicted gang").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> c.survivors(ns, low.get("low-b")).isEmpty());
            sampler.shutdown();
            assertThat(sampler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            assertThat(seen.get("low-a")).as("low-a never lost a member").containsOnly(8);
            // the room stayed big's while it waited: the victim's Job's new pods never took it, so nothing was evicted twice
            assertThat(lowBRemade).as("low-b pods made again that held room before big ran").isEmpty();
            assertThat(standby.gauge("muster_preemption_victims_evicted_total")).as("evictions the new leader sent: the one pod left")
                    .isEqualTo(1);
            assertThat(standby.gauge("muster_preemption_wasted_evictions_total")).as("wasted, new leader").isZero();
            assertThat(c.extender.gauge("muster_preemption_wasted_evictions_total")).as("wasted, restarted extender").isZero();
            Awaitility.await("the decision's record deleted once big runs").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> records().isEmpty());
            System.out.printf("e2e: leader killed with low-b half evicted; low-b counts sampled every 100 ms %s; big Running whole%n",
                    seen.get("low-b"));
        } finally {
            sampler.shutdownNow();
            standby.close(); // releases the Lease: the cluster's extender leads again
            try {
                admission.deleteValidatingAdmissionPolicyBinding(policy).execute();
                admission.deleteValidatingAdmissionPolicy(policy).execute();
            } catch (ApiException gone) {
                // deleted above
            }
        }
        Awaitility.await("the cluster's extender leads again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> holder().startsWith("extender_"));
    }

    /** A Job of {@code n} pods at once and {@code completions} in all, joined to a PodGroup of minMember {@code n}. */
    private void gangJob(String name, int n, int completions, String priorityClass) {
        c.admin.podGroup(ns, name, n, queue, Map.of());
        c.workloads.indexedJob(ns, name, n, completions, new Workloads.PodTemplate(name, "250m", "64Mi", 1, priorityClass), false);
    }

    /**
     * A policy that refuses every real eviction of pod {@code pod} (dry runs pass) and every eviction of a probe pod, and
     * waits until the API server applies it (a dry-run eviction of the probe is refused).
     */
    private void denyRealEvictions(AdmissionregistrationV1Api admission, String name, String pod) {
        String probe = "eviction-policy-probe";
        c.admin.pod(ns, probe, null, "10m", "16Mi", "no-such-scheduler", null);
        V1ValidatingAdmissionPolicy p = new V1ValidatingAdmissionPolicy().metadata(new V1ObjectMeta().name(name))
                .spec(new V1ValidatingAdmissionPolicySpec().failurePolicy("Fail")
                        .matchConstraints(new V1MatchResources().resourceRules(List.of(new V1NamedRuleWithOperations()
                                .apiGroups(List.of("")).apiVersions(List.of("v1")).operations(List.of("CREATE")).resources(List.of("pods/eviction")))))
                        .validations(List.of(new V1Validation().expression("request.namespace != '" + ns + "' || (request.name != '" + probe
                                + "' && (request.name != '" + pod + "' || request.dryRun == true))").message("evictions of " + pod + " are refused for now"))));
        Kube.call("create policy", () -> admission.createValidatingAdmissionPolicy(p).execute());
        Kube.call("create policy binding", () -> admission.createValidatingAdmissionPolicyBinding(new V1ValidatingAdmissionPolicyBinding()
                .metadata(new V1ObjectMeta().name(name)).spec(new V1ValidatingAdmissionPolicyBindingSpec().policyName(name)
                        .validationActions(List.of("Deny")))).execute());
        Awaitility.await("the eviction policy applied").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try {
                c.admin.core().createNamespacedPodEviction(probe, ns, new V1Eviction().metadata(new V1ObjectMeta().name(probe).namespace(ns)))
                        .dryRun("All").execute();
                return false;
            } catch (ApiException e) {
                return e.getCode() == 403 || e.getCode() == 422;
            } catch (RuntimeException e) { // the Status answer does not parse as an Eviction: it was accepted
                return false;
            }
        });
    }

    private String holder() {
        var lease = Kube.call("get lease", () -> new CoordinationV1Api(c.admin.core().getApiClient())
                .readNamespacedLease(LEASE, MusterInstall.NAMESPACE).execute());
        return lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null ? "" : lease.getSpec().getHolderIdentity();
    }

    /** The annotations of the Lease that records preemption decisions. */
    private Map<String, String> records() {
        try {
            var lease = new CoordinationV1Api(c.admin.core().getApiClient()).readNamespacedLease(LEASE + "-preemptions", MusterInstall.NAMESPACE).execute();
            Map<String, String> a = lease.getMetadata().getAnnotations();
            return a == null ? Map.of() : a;
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return Map.of();
            }
            throw new IllegalStateException(e);
        }
    }
}
