package dev.muster.controller;

import dev.muster.common.config.Durations;
import dev.muster.common.config.Flags;
import dev.muster.common.config.LeaderElectionSettings;
import dev.muster.common.leader.LeaderIdentity;
import dev.muster.common.rpc.ServerTls;
import dev.muster.common.tls.CallerRoles;
import dev.muster.controller.rpc.ClientTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The controller's configuration: command-line flags ({@code --name value} or {@code --name=value}), each also
 * read from the environment as {@code MUSTER_<UPPER_SNAKE>} (a flag wins over the environment, which wins over
 * the default), plus the downward-API variables {@code POD_NAME}, {@code POD_NAMESPACE} and {@code POD_IP}. Every
 * validation error is an {@link IllegalArgumentException} whose message names the flag or variable.
 *
 * @param kubeconfig      {@code --kubeconfig}: path, or null for the in-cluster service account
 * @param extenderAddress {@code --extender-address}: host:port of the extender's gRPC (Allocations stream)
 * @param opsPort         {@code --ops-port}: plain-HTTP /healthz /readyz /metrics (0 = any free port)
 * @param grpcPort        {@code --grpc-port}: Queues, health, reflection (0 = any free port)
 * @param flushInterval   {@code --flush-interval}: how often dirty objects are written
 * @param apiQps          {@code --api-qps}: status writes per second, sustained
 * @param apiBurst        {@code --api-burst}: status writes saved up for a burst
 * @param leaderElect     {@code --leader-elect}: elect a writer through a Lease (false: this process always leads)
 * @param leaseName       {@code --lease-name}
 * @param leaseNamespace  {@code --lease-namespace}, else POD_NAMESPACE, else the service account's namespace
 * @param grpcTls         the Queues server's certificate and key (+ client CA for mTLS); empty for plaintext
 * @param callers         {@code --tls-client-roles}: with client certificates, the Queues API serves only role operator
 * @param extenderTls     how to reach the extender: CA (+ client certificate and key for mTLS); empty for plaintext
 * @param podName         POD_NAME (else HOSTNAME)
 * @param podIp           POD_IP
 * @param extenderTlsSecret {@code --extender-tls-secret}: {@code NAMESPACE/NAME} of the Secret whose keys the
 *                        {@code --extender-tls-*} files' names are, read through the API and watched; null to read the files
 */
public record ControllerConfig(String kubeconfig, String extenderAddress, int opsPort, int grpcPort, Duration flushInterval,
                               double apiQps, int apiBurst, boolean leaderElect, String leaseName, String leaseNamespace,
                               Optional<ServerTls> grpcTls, Optional<ClientTls> extenderTls, String podName, String podIp,
                               CallerRoles callers, String extenderTlsSecret) {
    public static final String DEFAULT_EXTENDER_ADDRESS = "muster-extender:9090";
    public static final int DEFAULT_OPS_PORT = 8080;
    public static final int DEFAULT_GRPC_PORT = 9091;
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
    public static final double DEFAULT_API_QPS = 20;
    public static final int DEFAULT_API_BURST = 40;
    public static final String DEFAULT_LEASE_NAME = "muster-controller";

    /** Flag name → description (with default), in the order {@link #usage()} prints them. */
    public static final Map<String, String> FLAGS;

    static {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("kubeconfig", "kubeconfig file (default: the in-cluster service account)");
        f.put("extender-address", "host:port of the extender's gRPC, for the allocation stream (default " + DEFAULT_EXTENDER_ADDRESS + ")");
        f.put("ops-port", "plain-HTTP /healthz /readyz /metrics port (default " + DEFAULT_OPS_PORT + ")");
        f.put("grpc-port", "gRPC port of the Queues service (default " + DEFAULT_GRPC_PORT + ")");
        f.put("flush-interval", "how often changed Queue and PodGroup status is written (default " + Durations.format(DEFAULT_FLUSH_INTERVAL) + ")");
        f.put("api-qps", "status writes per second to the API server (default " + (int) DEFAULT_API_QPS + ")");
        f.put("api-burst", "status writes that may be saved up for a burst (default " + DEFAULT_API_BURST + ")");
        f.put("leader-elect", "elect the writing replica through a coordination.k8s.io Lease (default true)");
        f.put("lease-name", "Lease name (default " + DEFAULT_LEASE_NAME + ")");
        f.put("lease-namespace", "Lease namespace (default: POD_NAMESPACE, else the service account's namespace)");
        f.put("grpc-tls-cert-file", "PEM certificate for the Queues gRPC server (with --grpc-tls-key-file)");
        f.put("grpc-tls-key-file", "PEM private key for --grpc-tls-cert-file");
        f.put("grpc-tls-client-ca-file", "PEM CA bundle: require client certificates signed by it (mTLS)");
        f.put("tls-client-roles", "with --grpc-tls-client-ca-file: which client certificate (by its subject common name) is an "
                + "operator, as operator=CN,...; the Queues API then serves only those (default: every certificate the client CA signed)");
        f.put("extender-tls-ca-file", "PEM CA bundle that signs the extender's gRPC certificate (enables TLS to the extender)");
        f.put("extender-tls-cert-file", "PEM client certificate for mTLS to the extender (with --extender-tls-key-file)");
        f.put("extender-tls-key-file", "PEM private key for --extender-tls-cert-file");
        f.put("extender-tls-secret", "NAMESPACE/NAME: read the --extender-tls-* files from this Secret through the API (the files'"
                + " names are its keys) and watch it, so a rotation is taken up within about a second, not when the kubelet updates"
                + " the Secret volume; needs get, list and watch on that Secret (default: read the files)");
        FLAGS = Collections.unmodifiableMap(f);
    }

    static final Path SERVICE_ACCOUNT_NAMESPACE = LeaderElectionSettings.SERVICE_ACCOUNT_NAMESPACE;

    /** Parses {@code args} and {@code env} (normally {@code System.getenv()}). */
    public static ControllerConfig parse(List<String> args, Map<String, String> env) {
        return parse(args, env, SERVICE_ACCOUNT_NAMESPACE);
    }

    static ControllerConfig parse(List<String> args, Map<String, String> env, Path serviceAccountNamespaceFile) {
        Flags flags = Flags.parse(args, FLAGS.keySet(), env);
        String kubeconfig = flags.optional("kubeconfig");
        if (kubeconfig != null) {
            Flags.readableFile("kubeconfig", kubeconfig);
        }
        String extenderAddress = flags.string("extender-address", DEFAULT_EXTENDER_ADDRESS).trim();
        int colon = extenderAddress.lastIndexOf(':');
        if (colon <= 0 || colon == extenderAddress.length() - 1) {
            throw new IllegalArgumentException("--extender-address: \"" + extenderAddress + "\" is not host:port");
        }
        portNumber("extender-address", extenderAddress.substring(colon + 1));
        int opsPort = flags.port("ops-port", DEFAULT_OPS_PORT);
        int grpcPort = flags.port("grpc-port", DEFAULT_GRPC_PORT);
        if (opsPort != 0 && opsPort == grpcPort) {
            throw new IllegalArgumentException("--ops-port and --grpc-port must differ, both are " + opsPort);
        }
        Duration flushInterval = flags.duration("flush-interval", DEFAULT_FLUSH_INTERVAL);
        if (flushInterval.isZero() || flushInterval.isNegative()) {
            throw new IllegalArgumentException("--flush-interval must be positive, got " + Durations.format(flushInterval));
        }
        double apiQps = flags.decimal("api-qps", DEFAULT_API_QPS);
        if (!(apiQps > 0) || Double.isInfinite(apiQps)) {
            throw new IllegalArgumentException("--api-qps must be a positive number, got " + apiQps);
        }
        int apiBurst = flags.integer("api-burst", DEFAULT_API_BURST);
        if (apiBurst < 1) {
            throw new IllegalArgumentException("--api-burst must be at least 1, got " + apiBurst);
        }
        LeaderElectionSettings leader = LeaderElectionSettings.parse(flags, env, DEFAULT_LEASE_NAME, serviceAccountNamespaceFile);
        boolean leaderElect = leader.leaderElect();
        String leaseName = leader.leaseName();
        String leaseNamespace = leader.leaseNamespace();
        String podName = leader.podName();
        String podIp = leader.podIp();
        Optional<ServerTls> grpcTls = ServerTls.fromFiles(flags.optional("grpc-tls-cert-file"), flags.optional("grpc-tls-key-file"),
                flags.optional("grpc-tls-client-ca-file"));
        Optional<ClientTls> extenderTls = ClientTls.fromFiles("--extender-tls", flags.optional("extender-tls-ca-file"),
                flags.optional("extender-tls-cert-file"), flags.optional("extender-tls-key-file"));
        return new ControllerConfig(kubeconfig, extenderAddress, opsPort, grpcPort, flushInterval, apiQps, apiBurst, leaderElect,
                leaseName, leaseNamespace, grpcTls, extenderTls, podName, podIp,
                CallerRoles.parse("tls-client-roles", flags.optional("tls-client-roles")), extenderTlsSecret(flags, extenderTls));
    }

    private static String extenderTlsSecret(Flags flags, Optional<ClientTls> extenderTls) {
        String v = flags.optional("extender-tls-secret");
        if (v == null || v.isBlank()) {
            return null;
        }
        dev.muster.common.kube.TlsSecretWatch.parse("extender-tls-secret", v);
        if (extenderTls.map(ClientTls::certChain).isEmpty()) {
            throw new IllegalArgumentException("--extender-tls-secret names where the --extender-tls-* files are read from, but no"
                    + " --extender-tls-cert-file is given");
        }
        return v.strip();
    }

    /** The Lease holder identity {@code <POD_NAME>_<POD_IP>}; only when leader election is on. */
    public LeaderIdentity leaderIdentity() {
        if (!leaderElect) {
            throw new IllegalStateException("leader election is off (--leader-elect=false)");
        }
        return new LeaderIdentity(podName, podIp);
    }

    /** One line per flag, for {@code --help} and error output. */
    public static String usage() {
        StringBuilder sb = new StringBuilder("Flags (each also as env MUSTER_<UPPER_SNAKE>, e.g. MUSTER_API_QPS):\n");
        FLAGS.forEach((name, description) -> sb.append(String.format("  --%-26s %s%n", name, description)));
        sb.append("Environment (downward API): POD_NAME, POD_NAMESPACE, POD_IP\n");
        return sb.toString();
    }


    private static void portNumber(String flag, String text) {
        try {
            int p = Integer.parseInt(text);
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + flag + ": \"" + text + "\" is not a port (1-65535)");
        }
    }



}
