package dev.muster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.scoring.ScoringPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServerConfigTest {
    private static final Map<String, String> POD_ENV = Map.of("POD_NAME", "muster-0", "POD_NAMESPACE", "muster-system", "POD_IP", "10.0.0.7");

    @TempDir
    static Path dir;
    static Path cert;
    static Path key;
    static Path ca;

    @BeforeEach
    void files() throws IOException {
        cert = Files.writeString(dir.resolve("tls.crt"), "cert");
        key = Files.writeString(dir.resolve("tls.key"), "key");
        ca = Files.writeString(dir.resolve("ca.crt"), "ca");
    }

    /** Parsed as a developer runs it, without certificates ({@code MUSTER_INSECURE_UNAUTHENTICATED_VERBS=true}). */
    private static ServerConfig parse(Map<String, String> env, String... args) {
        Map<String, String> insecure = new HashMap<>(env);
        insecure.putIfAbsent("MUSTER_INSECURE_UNAUTHENTICATED_VERBS", "true");
        return parseSecure(insecure, args);
    }

    /** Parsed as deployed: client certificates are required unless the flags say otherwise. */
    private static ServerConfig parseSecure(Map<String, String> env, String... args) {
        return ServerConfig.parse(Arrays.asList(args), env, dir.resolve("no-such-namespace-file"));
    }

    @Test
    void defaultsInsideAPod() {
        ServerConfig c = parse(POD_ENV);
        assertThat(c.schedulerName()).isEqualTo("muster");
        assertThat(c.kubeconfig()).isNull();
        assertThat(c.httpPort()).isEqualTo(8888);
        assertThat(c.opsPort()).isEqualTo(8080);
        assertThat(c.grpcPort()).isEqualTo(9090);
        assertThat(c.gangDeadline()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.scoring()).isEqualTo(ScoringPolicy.BINPACK);
        assertThat(c.leaderElect()).isTrue();
        assertThat(c.leaseName()).isEqualTo("muster-extender");
        assertThat(c.leaseNamespace()).isEqualTo("muster-system");
        assertThat(c.httpTls()).isNull();
        assertThat(c.grpcTls()).isNull();
        assertThat(c.maxBodyBytes()).isEqualTo(67_108_864L);
        assertThat(c.journalWindow()).isEqualTo(65_536);
        assertThat(c.leaderIdentity().toString()).isEqualTo("muster-0_http=8888,grpc=9090_10.0.0.7");
    }

    @Test
    void everyFlagOnTheCommandLine() {
        ServerConfig c = parseSecure(POD_ENV, "--scheduler-name", "gang", "--http-port=9443", "--ops-port", "9081", "--grpc-port", "9091",
                "--gang-deadline", "1m30s", "--admission-hold", "2s", "--scoring", "spread", "--lease-name", "x", "--lease-namespace", "ops",
                "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(), "--tls-client-ca-file", ca.toString(),
                "--grpc-tls-cert-file", cert.toString(), "--grpc-tls-key-file", key.toString(), "--grpc-tls-client-ca-file", ca.toString(),
                "--max-body-bytes", "1024", "--journal-window", "100", "--topology-levels", "topology.kubernetes.io/zone, example.com/rack,kubernetes.io/hostname");
        assertThat(c.schedulerName()).isEqualTo("gang");
        assertThat(c.httpPort()).isEqualTo(9443);
        assertThat(c.opsPort()).isEqualTo(9081);
        assertThat(c.grpcPort()).isEqualTo(9091);
        assertThat(c.gangDeadline()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.admissionHold()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.scoring()).isEqualTo(ScoringPolicy.SPREAD);
        assertThat(c.leaseName()).isEqualTo("x");
        assertThat(c.leaseNamespace()).isEqualTo("ops");
        assertThat(c.httpTls()).isEqualTo(new ServerConfig.TlsFiles(cert, key, ca));
        assertThat(c.grpcTls().mutual()).isTrue();
        assertThat(c.insecure()).isFalse();
        assertThat(c.maxBodyBytes()).isEqualTo(1024);
        assertThat(c.journalWindow()).isEqualTo(100);
        assertThat(c.topologyLevels()).containsExactly("topology.kubernetes.io/zone", "example.com/rack", "kubernetes.io/hostname");
    }

    @Test
    void tlsSecretNamesTheSecretTheTlsFilesAreReadFromAsNamespaceSlashName() {
        String[] files = {"--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(), "--tls-client-ca-file", ca.toString(),
                "--grpc-tls-cert-file", cert.toString(), "--grpc-tls-key-file", key.toString(), "--grpc-tls-client-ca-file", ca.toString()};
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(files));
        args.add("--tls-secret=muster-system/muster-extender-tls");
        assertThat(parseSecure(POD_ENV, args.toArray(String[]::new)).tlsSecret()).isEqualTo("muster-system/muster-extender-tls");
        assertThat(parseSecure(POD_ENV, files).tlsSecret()).isNull();
        args.set(args.size() - 1, "--tls-secret=muster-extender-tls");
        assertThatThrownBy(() -> parseSecure(POD_ENV, args.toArray(String[]::new))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-secret").hasMessageContaining("NAMESPACE/NAME");
    }

    @Test
    void schedulerDeploymentNamesTheDeploymentToRestartAndNeedsTheTlsSecret() {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(),
                "--tls-client-ca-file", ca.toString(), "--grpc-tls-cert-file", cert.toString(), "--grpc-tls-key-file", key.toString(),
                "--grpc-tls-client-ca-file", ca.toString(), "--scheduler-deployment=muster-system/muster-scheduler"));
        assertThatThrownBy(() -> parseSecure(POD_ENV, args.toArray(String[]::new))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--scheduler-deployment").hasMessageContaining("no --tls-secret");
        args.add("--tls-secret=muster-system/muster-extender-tls");
        assertThat(parseSecure(POD_ENV, args.toArray(String[]::new)).schedulerDeployment()).isEqualTo("muster-system/muster-scheduler");
        args.set(args.size() - 2, "--scheduler-deployment=muster-scheduler");
        assertThatThrownBy(() -> parseSecure(POD_ENV, args.toArray(String[]::new))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--scheduler-deployment").hasMessageContaining("NAMESPACE/NAME");
    }

    @Test
    void environmentFillsInAndTheCommandLineWins() {
        Map<String, String> env = new HashMap<>(POD_ENV);
        env.put("MUSTER_GANG_DEADLINE", "2m");
        env.put("MUSTER_SCORING", "spread");
        ServerConfig c = parse(env, "--scoring", "binpack");
        assertThat(c.gangDeadline()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.scoring()).isEqualTo(ScoringPolicy.BINPACK);
    }

    @Test
    void withoutLeaderElectionNoPodIdentityIsNeeded() {
        ServerConfig c = parse(Map.of(), "--leader-elect", "false");
        assertThat(c.leaderElect()).isFalse();
        assertThat(c.podIp()).isNull();
        assertThatThrownBy(c::leaderIdentity).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void leaseNamespaceFallsBackToTheServiceAccountNamespace() throws IOException {
        Path ns = Files.writeString(dir.resolve("namespace"), "from-sa\n");
        ServerConfig c = ServerConfig.parse(List.of("--insecure-unauthenticated-verbs"), Map.of("POD_NAME", "m", "POD_IP", "10.0.0.1"), ns);
        assertThat(c.leaseNamespace()).isEqualTo("from-sa");
    }

    @Test
    void podNameFallsBackToHostname() {
        ServerConfig c = parse(Map.of("HOSTNAME", "muster-abc", "POD_IP", "10.0.0.1", "POD_NAMESPACE", "n"));
        assertThat(c.leaderIdentity().toString()).isEqualTo("muster-abc_http=8888,grpc=9090_10.0.0.1");
    }

    @Test
    void zeroPortsMayRepeat() {
        ServerConfig c = parse(POD_ENV, "--leader-elect", "false", "--http-port", "0", "--ops-port", "0", "--grpc-port", "0");
        assertThat(c.httpPort()).isZero();
    }

    @Test
    void theLeaseIdentityCarriesTheServingPorts() {
        ServerConfig c = parse(POD_ENV, "--http-port", "18888", "--grpc-port", "19090");
        assertThat(c.leaderIdentity().toString()).isEqualTo("muster-0_http=18888,grpc=19090_10.0.0.7");
    }

    @Test
    void aPortThatCannotBePublishedIsRejectedWithLeaderElection() {
        assertThatThrownBy(() -> parse(POD_ENV, "--http-port", "0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--http-port 0 cannot be published");
        assertThatThrownBy(() -> parse(POD_ENV, "--grpc-port", "0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--grpc-port 0 cannot be published");
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("unknown flag", POD_ENV, new String[] {"--colour", "red"}, "unknown flag --colour"),
                Arguments.of("provisioning without the gate", POD_ENV, new String[] {"--provisioning", "true"},
                        "--provisioning needs --queue-admission-gate=true"),
                Arguments.of("port not a number", POD_ENV, new String[] {"--http-port", "eighty"}, "--http-port"),
                Arguments.of("port out of range", POD_ENV, new String[] {"--grpc-port", "70000"}, "--grpc-port: 70000 is not a port"),
                Arguments.of("two flags on one port", POD_ENV, new String[] {"--ops-port", "8888"}, "--http-port and --ops-port are both 8888"),
                Arguments.of("deadline not a duration", POD_ENV, new String[] {"--gang-deadline", "soon"}, "--gang-deadline"),
                Arguments.of("deadline zero", POD_ENV, new String[] {"--gang-deadline", "0s"}, "--gang-deadline must be positive"),
                Arguments.of("hold not below the deadline", POD_ENV, new String[] {"--gang-deadline", "10s", "--admission-hold", "10s"},
                        "--admission-hold must be at least 0 and shorter than --gang-deadline (10s), got 10s"),
                Arguments.of("unknown scoring", POD_ENV, new String[] {"--scoring", "random"}, "--scoring: scoring policy \"random\" is not one of binpack, spread"),
                Arguments.of("leader-elect not boolean", POD_ENV, new String[] {"--leader-elect", "maybe"}, "--leader-elect"),
                Arguments.of("empty scheduler name", POD_ENV, new String[] {"--scheduler-name="}, "--scheduler-name must not be empty"),
                Arguments.of("no POD_IP with leader election", Map.of("POD_NAME", "m", "POD_NAMESPACE", "n"), new String[0], "POD_IP is not set"),
                Arguments.of("no POD_NAME with leader election", Map.of("POD_IP", "1.2.3.4", "POD_NAMESPACE", "n"), new String[0], "POD_NAME is not set"),
                Arguments.of("no lease namespace with leader election", Map.of("POD_NAME", "m", "POD_IP", "1.2.3.4"), new String[0],
                        "--lease-namespace is not set"),
                Arguments.of("cert without key", POD_ENV, new String[] {"--tls-cert-file", "CERT"}, "--tls-cert-file and --tls-key-file go together"),
                Arguments.of("client CA without server cert", POD_ENV, new String[] {"--grpc-tls-client-ca-file", "CA"},
                        "--grpc-tls-client-ca-file needs --grpc-tls-cert-file and --grpc-tls-key-file"),
                Arguments.of("missing cert file", POD_ENV, new String[] {"--tls-cert-file", "/nonexistent.crt", "--tls-key-file", "KEY"},
                        "--tls-cert-file: /nonexistent.crt does not exist"),
                Arguments.of("missing kubeconfig", POD_ENV, new String[] {"--kubeconfig", "/nonexistent/kubeconfig"}, "--kubeconfig: /nonexistent/kubeconfig"),
                Arguments.of("body limit zero", POD_ENV, new String[] {"--max-body-bytes", "0"}, "--max-body-bytes must be at least 1"),
                Arguments.of("journal window negative", POD_ENV, new String[] {"--journal-window", "-1"}, "--journal-window"),
                Arguments.of("topology level key empty", POD_ENV, new String[] {"--topology-levels", "zone,,rack"},
                        "--topology-levels \"zone,,rack\": an empty label key (check the commas)"),
                Arguments.of("topology level key invalid", POD_ENV, new String[] {"--topology-levels", "zone,my rack"},
                        "--topology-levels: \"my rack\" is not a valid label key"),
                Arguments.of("topology level key twice", POD_ENV, new String[] {"--topology-levels", "rack,rack"},
                        "--topology-levels: label key rack is listed twice"),
                Arguments.of("bad env value names the flag", Map.of("MUSTER_HTTP_PORT", "x", "POD_NAME", "m", "POD_IP", "1", "POD_NAMESPACE", "n"),
                        new String[0], "--http-port"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidConfigurationNamesTheFlag(String name, Map<String, String> env, String[] args, String message) {
        String[] resolved = Arrays.stream(args).map(a -> a.replace("CERT", cert.toString()).replace("KEY", key.toString())
                .replace("CA", ca.toString())).toArray(String[]::new);
        assertThatThrownBy(() -> parse(env, resolved)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void usageListsEveryFlag() {
        assertThat(ServerConfig.usage()).contains("--gang-deadline", "--admission-hold", "--set-aside-after", "--topology-levels", "--pick-node", "--gang-marker", "--queue-admission-gate", "--grpc-tls-client-ca-file", "--tls-secret", "MUSTER_GANG_DEADLINE", "POD_IP");
        assertThat(ServerConfig.FLAGS).hasSize(39);
        assertThat(ServerConfig.usage()).contains("--provisioning", "--provisioning-class", "--provisioning-parameters");
    }

    @Test
    void withoutClientCertificatesTheExtenderRefusesToStartNamingWhatIsMissing() {
        assertThatThrownBy(() -> parseSecure(POD_ENV)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing --tls-cert-file, --tls-key-file, --tls-client-ca-file, --grpc-tls-cert-file,"
                        + " --grpc-tls-key-file, --grpc-tls-client-ca-file")
                .hasMessageContaining("--insecure-unauthenticated-verbs");
        assertThatThrownBy(() -> parseSecure(POD_ENV, "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(),
                "--grpc-tls-cert-file", cert.toString(), "--grpc-tls-key-file", key.toString(), "--grpc-tls-client-ca-file", ca.toString()))
                .hasMessageStartingWith("missing --tls-client-ca-file:");
    }

    @Test
    void theInsecureFlagAllowsVerbsWithoutCertificatesAndSaysSo() {
        ServerConfig c = parseSecure(POD_ENV, "--insecure-unauthenticated-verbs");
        assertThat(c.insecure()).isTrue();
        assertThat(c.httpTls()).isNull();
        assertThat(ServerConfig.FLAGS.get("insecure-unauthenticated-verbs")).contains("for development only");
    }

    @Test
    void pickNodeIsOnByDefaultAndCanBeTurnedOffOrIsRefusedWhenGarbled() {
        assertThat(parse(Map.of(), "--leader-elect", "false").pickNode()).isTrue();
        assertThat(parse(Map.of(), "--leader-elect", "false", "--pick-node", "false").pickNode()).isFalse();
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--pick-node", "maybe"))
                .hasMessageContaining("--pick-node").hasMessageContaining("maybe");
    }

    @Test
    void gangMarkerIsOnByDefaultAndCanBeTurnedOff() {
        assertThat(parse(Map.of(), "--leader-elect", "false").gangMarker()).isTrue();
        assertThat(parse(Map.of(), "--leader-elect", "false", "--gang-marker", "false").gangMarker()).isFalse();
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--gang-marker", "sometimes"))
                .hasMessageContaining("--gang-marker").hasMessageContaining("sometimes");
    }

    @Test
    void preemptionAndReclaimAreOnByDefaultWithNoMinimumRunTime() {
        ServerConfig c = parse(Map.of(), "--leader-elect", "false");
        assertThat(c.preemption()).isTrue();
        assertThat(c.reclaim()).isTrue();
        assertThat(c.victimMinRuntime()).isZero();
        ServerConfig off = parse(Map.of("MUSTER_RECLAIM", "false"), "--leader-elect", "false", "--preemption=false",
                "--victim-min-runtime", "10m");
        assertThat(off.preemption()).isFalse();
        assertThat(off.reclaim()).as("from the environment").isFalse();
        assertThat(off.victimMinRuntime()).isEqualTo(java.time.Duration.ofMinutes(10));
        assertThat(ServerConfig.usage()).contains("--preemption", "--reclaim", "--victim-min-runtime", "--reclaim-band");
    }

    @Test
    void theBandAroundFairShareIsATenthByDefaultAndAFractionBelowOne() {
        assertThat(parse(Map.of(), "--leader-elect", "false").reclaimBand()).isEqualTo(0.1);
        assertThat(parse(Map.of(), "--leader-elect", "false", "--reclaim-band", "0").reclaimBand()).isZero();
        assertThat(parse(Map.of(), "--leader-elect", "false", "--reclaim-band=0.25").reclaimBand()).isEqualTo(0.25);
        for (String bad : java.util.List.of("1", "-0.1", "NaN", "10%")) {
            assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--reclaim-band", bad))
                    .as(bad).hasMessageContaining("--reclaim-band");
        }
    }

    @Test
    void garbledPreemptionFlagsAreRefusedNamingTheFlag() {
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--preemption", "often"))
                .hasMessageContaining("--preemption").hasMessageContaining("often");
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--reclaim", "2"))
                .hasMessageContaining("--reclaim").hasMessageContaining("\"2\"");
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--victim-min-runtime", "ten minutes"))
                .hasMessageContaining("--victim-min-runtime").hasMessageContaining("not a duration");
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--victim-min-runtime", "-5m"))
                .hasMessageContaining("--victim-min-runtime");
    }

    @Test
    void theDryRunIsLimitedPerCallerAndPerProcessByDefaultAndTheLimitsAreFlags() {
        assertThat(parse(Map.of(), "--leader-elect", "false").dryRunLimit()).isEqualTo(dev.muster.server.grpc.DryRunLimiter.Limit.DEFAULT);
        ServerConfig c = parse(Map.of("MUSTER_DRY_RUN_BURST", "2"), "--leader-elect", "false", "--dry-run-rate", "0.5",
                "--dry-run-process-rate", "20");
        assertThat(c.dryRunLimit()).isEqualTo(new dev.muster.server.grpc.DryRunLimiter.Limit(0.5, 20, 2));
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--dry-run-rate", "0"))
                .hasMessageContaining("--dry-run-rate and --dry-run-process-rate must be above 0");
        assertThatThrownBy(() -> parse(Map.of(), "--leader-elect", "false", "--dry-run-burst", "0"))
                .hasMessageContaining("--dry-run-burst at least 1");
    }
}
