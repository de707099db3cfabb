package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Leadership that cannot split, on its own real control plane: the chart installed, two extender replicas started as
 * the chart's Deployment runs them (each with its own token of the extender ServiceAccount, one Lease in
 * muster-system, the chart's lease timings: 15 s lease, 10 s renew deadline), the controller, and an unmodified
 * kube-scheduler that talks to the <em>standby</em>, which forwards every verb to the leader.
 *
 * <p>The leader is frozen ({@code kill -STOP}) while 7 binds of an 8-member gang wait at its barrier and another
 * gang's binds are held (its PodGroup not created yet). The standby takes the Lease and schedules both gangs and a
 * new one into the room the frozen leader had reserved; then the old leader is woken ({@code kill -CONT}). The API
 * server's audit log tells whose token posted each Binding: the old leader posts none after it was frozen, no node is
 * over its cpu and every gang is bound whole or not at all.
 */
@RealControlPlane
class LeaderFailoverE2eTest {
    private static final int NODES = 4; // 4 cpu each: 16 cpu, exactly what the four gangs below ask
    private static final String LEASE = "muster-extender";

    @Test
    void aFrozenLeaderIsReplacedWithinTheLeaseAndPostsNoBindingWhenItWakes() throws Exception {
        Path dir = Files.createTempDirectory("muster-e2e-failover-");
        Path auditLog = dir.resolve("audit.log");
        Path policy = Files.writeString(dir.resolve("audit-policy.yaml"), """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: ["RequestReceived"]
                rules:
                - level: Metadata
                  resources:
                  - group: ""
                    resources: ["pods/binding"]
                - level: None
                """);
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(dir);
        String version = System.getProperty("muster.version", "0.1.0-SNAPSHOT");
        List<AutoCloseable> running = new ArrayList<>();
        MusterProcess leader = null;
        try {
            ControlPlane cp = ControlPlane.start(new ControlPlane.Options(env.binaries(), env.dataDir(), env.keepData(),
                    List.of("--audit-policy-file=" + policy, "--audit-log-path=" + auditLog)));
            running.add(cp);
            Kube admin = new Kube(cp.adminClient());
            MusterInstall install = MusterInstall.install(cp, E2eCluster.REPO.resolve("charts/muster"));
            admin.nodes("node-", NODES, "4", "16Gi");

            // two replicas of the extender Deployment: each its own token of the one ServiceAccount, one Lease
            Replica a = Replica.start("extender-a", install, version, dir);
            running.add(a.process);
            leader = a.process;
            awaitHolder(admin, "extender-a");
            Replica b = Replica.start("extender-b", install, version, dir);
            running.add(b.process);
            running.add(MusterProcess.start("controller", MusterProcess.Program.CONTROLLER, E2eCluster.REPO, version, List.of(
                    "--kubeconfig=" + install.kubeconfigFor("controller"), "--extender-address=127.0.0.1:" + b.grpcPort,
                    "--grpc-port=" + ControlPlane.freePort(), "--lease-namespace=" + MusterInstall.NAMESPACE), dir, ControlPlane.freePort()));
            // kube-scheduler talks to the standby, which forwards to the leader
            running.add(KubeScheduler.start(cp, E2eCluster.REPO.resolve("extender-config/scheduler-config-insecure.yaml"),
                    "http://127.0.0.1:" + b.httpPort));

            String ns = admin.namespace("failover");
            // a gang bound through the standby by the leader: the audit log shows the leader's token on its Bindings
            admin.podGroup(ns, "first", 2, "default", Map.of());
            admin.members(ns, "first", 0, 2, "1", "1Gi");
            awaitWhole(admin, ns, "first-", 2);
            assertThat(bindings(auditLog, a.credentialId)).as("Bindings the leader posted (audit log)").hasSize(2);

            // 7 of 8 members: their binds wait at the leader's barrier; a gang whose PodGroup is not there yet: binds held
            admin.podGroup(ns, "waiting", 8, "default", Map.of());
            admin.members(ns, "waiting", 0, 7, "1", "1Gi");
            admin.members(ns, "held", 0, 2, "1", "1Gi");
            Awaitility.await("7 binds waiting and a bind held at the leader").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20))
                    .until(() -> a.process.gauge("muster_waiting_binds") == 7 && a.process.gauge("muster_held_binds") >= 1);
            a.process.freeze();
            long frozen = System.nanoTime();
            int bindingsBeforeFreeze = bindings(auditLog, a.credentialId).size();

            awaitHolder(admin, "extender-b");
            long takeover = System.nanoTime();
            // the standby leads: a new gang, the held gang's PodGroup and the waiting gang's last member, into the same room
            admin.podGroup(ns, "next", 4, "default", Map.of());
            admin.members(ns, "next", 0, 4, "1", "1Gi");
            admin.podGroup(ns, "held", 2, "default", Map.of());
            admin.members(ns, "waiting", 7, 1, "1", "1Gi");
            awaitWhole(admin, ns, "next-", 4);
            double nextBound = (System.nanoTime() - takeover) / 1e9;
            awaitWhole(admin, ns, "held-", 2);
            awaitWhole(admin, ns, "waiting-", 8);
            double allBound = (System.nanoTime() - takeover) / 1e9;
            System.out.printf("e2e: leader frozen; the standby took the Lease %.1f s later; after the takeover a new gang of 4 was bound"
                    + " whole in %.2f s, all three gangs (4, 2 and the 8 whose binds waited at the frozen leader) in %.2f s%n",
                    (takeover - frozen) / 1e9, nextBound, allBound);

            Map<String, String> placed = admin.bound(ns, "");
            a.process.thaw();
            // woken, the old leader finds it lost the Lease: drops its books, posts nothing, and serves as a standby
            Awaitility.await("the old leader woken holds nothing").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> a.process.gauge("muster_waiting_binds") == 0 && a.process.gauge("muster_held_binds") == 0
                            && a.process.gauge("muster_reservations") == 0);
            Awaitility.await("no Binding from the old leader, nothing moved").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> bindings(auditLog, a.credentialId).size() == bindingsBeforeFreeze && admin.bound(ns, "").equals(placed));
            assertThat(holder(admin)).startsWith("extender-b_");
            assertThat(bindings(auditLog, b.credentialId).stream().filter(x -> x.endsWith(" 201")).distinct())
                    .as("pods the new leader bound").hasSize(14);
            assertThat(E2eCluster.cpuPerNode(admin)).as("cpu per node").hasSize(NODES).allSatisfy((node, millis) -> assertThat(millis).isEqualTo(4000));
        } finally {
            if (leader != null) {
                leader.thaw(); // a stopped process cannot handle the SIGTERM that closes it
            }
            for (int i = running.size() - 1; i >= 0; i--) {
                running.get(i).close();
            }
        }
    }

    /** One extender replica: its process, ports and the credential id of its token (what the audit log records). */
    private record Replica(MusterProcess process, int httpPort, int grpcPort, String credentialId) {
        static Replica start(String name, MusterInstall install, String version, Path dir) throws IOException {
            Path kubeconfig = install.kubeconfigFor("extender", name);
            int http = ControlPlane.freePort();
            int grpc = ControlPlane.freePort();
            MusterProcess p = MusterProcess.start(name, MusterProcess.Program.EXTENDER, E2eCluster.REPO, version, List.of(
                    "--kubeconfig=" + kubeconfig, "--http-port=" + http, "--grpc-port=" + grpc, "--lease-namespace=" + MusterInstall.NAMESPACE,
                    "--insecure-unauthenticated-verbs"), dir, ControlPlane.freePort());
            return new Replica(p, http, grpc, tokenCredential(Files.readString(kubeconfig)));
        }
    }

    /** "JTI=<jti>" of the service account token in a kubeconfig, as the API server names the credential in its audit log. */
    private static String tokenCredential(String kubeconfig) {
        String token = kubeconfig.lines().map(String::trim).filter(l -> l.startsWith("token:")).findFirst().orElseThrow()
                .substring("token:".length()).trim().replace("\"", "");
        JsonObject claims = JsonParser.parseString(new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8))
                .getAsJsonObject();
        return "JTI=" + claims.get("jti").getAsString();
    }

    /** Every Binding posted with the credential {@code credentialId}, as "namespace/pod status-code", from the audit log. */
    private static List<String> bindings(Path auditLog, String credentialId) throws IOException {
        List<String> out = new ArrayList<>();
        if (!Files.exists(auditLog)) {
            return out;
        }
        for (String line : Files.readAllLines(auditLog, StandardCharsets.UTF_8)) {
            JsonObject e = JsonParser.parseString(line).getAsJsonObject();
            JsonObject ref = e.getAsJsonObject("objectRef");
            JsonObject extra = e.getAsJsonObject("user").getAsJsonObject("extra");
            JsonElement ids = extra == null ? null : extra.get("authentication.kubernetes.io/credential-id");
            if (ref != null && "binding".equals(ref.has("subresource") ? ref.get("subresource").getAsString() : null)
                    && ids != null && ids.toString().contains(credentialId)) {
                out.add(ref.get("namespace").getAsString() + "/" + ref.get("name").getAsString() + " " + e.getAsJsonObject("responseStatus").get("code"));
            }
        }
        return out;
    }

    private static String holder(Kube admin) {
        var lease = Kube.call("get lease", () -> new CoordinationV1Api(admin.core().getApiClient())
                .readNamespacedLease(LEASE, MusterInstall.NAMESPACE).execute());
        return lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null ? "" : lease.getSpec().getHolderIdentity();
    }

    private static void awaitHolder(Kube admin, String podName) {
        Awaitility.await("the Lease held by " + podName).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> holder(admin).startsWith(podName + "_"));
    }

    private static void awaitWhole(Kube admin, String ns, String prefix, int size) {
        Awaitility.await("gang " + ns + "/" + prefix + "* bound whole").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .until(() -> admin.bound(ns, prefix).size() == size);
    }
}
