package dev.muster.server;

import dev.muster.common.config.Durations;
import dev.muster.common.config.Flags;
import dev.muster.common.leader.LeaderIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The extender's configuration: command-line flags ({@code --name value} or {@code --name=value}), each also read
 * from the environment as {@code MUSTER_<UPPER_SNAKE>} (a flag wins over the environment, which wins over the
 * default), plus the downward-API variables {@code POD_NAME}, {@code POD_NAMESPACE} and {@code POD_IP}. Every
 * validation error is an {@link IllegalArgumentException} whose message names the flag or variable.
 *
 * @param schedulerName  {@code --scheduler-name}: the schedulerName of pods this extender schedules
 * @param kubeconfig     {@code --kubeconfig}: path, or null for the in-cluster service account
 * @param httpPort       {@code --http-port}: extender verbs and /healthz /readyz /metrics (0 = any free port)
 * @param opsPort        {@code --ops-port}: plain-HTTP /healthz /readyz /metrics
 * @param grpcPort       {@code --grpc-port}: Extender, Allocations, health, reflection
 * @param gangDeadline   {@code --gang-deadline}: default reservation deadline (PodGroups may override)
 * @param scoring        {@code --scoring}: binpack or spread
 * @param leaderElect    {@code --leader-elect}: elect a leader through a Lease (false: this process always leads)
 * @param leaseName      {@code --lease-name}
 * @param leaseNamespace {@code --lease-namespace}, else POD_NAMESPACE, else the service account's namespace; null
 *                       only when leader election is off and none is known
 * @param httpTls        {@code --tls-cert-file} + {@code --tls-key-file} for the HTTP verbs, or null for plain HTTP
 * @param grpcTls        {@code --grpc-tls-cert-file} + {@code --grpc-tls-key-file} (+ {@code --grpc-tls-client-ca-file}
 *                       for mTLS), or null for plaintext gRPC
 * @param maxBodyBytes   {@code --max-body-bytes}: largest accepted HTTP request body
 * @param journalWindow  {@code --journal-window}: allocation events kept for resuming streams
 * @param podName        POD_NAME (else HOSTNAME); null when unknown and leader election is off
 * @param podIp          POD_IP; null when unknown and leader election is off
 */
public record ServerConfig(String schedulerName, String kubeconfig, int httpPort, int opsPort, int grpcPort,
                           Duration gangDeadline, Scoring scoring, boolean leaderElect, String leaseName,
                           String leaseNamespace, TlsFiles httpTls, TlsFiles grpcTls, long maxBodyBytes,
                           int journalWindow, String podName, String podIp) {

    /** How prioritize ranks nodes that hold no slot of the pod's gang. */
    public enum Scoring {
        /** Prefer the fullest nodes that fit (keeps whole nodes free for big gangs). */
        BINPACK,
        /** Prefer the emptiest nodes. */
        SPREAD;

        static Scoring parse(String flag, String text) {
            for (Scoring s : values()) {
                if (s.name().equalsIgnoreCase(text.trim())) {
                    return s;
                }
            }
            throw new IllegalArgumentException("--" + flag + ": \"" + text + "\" is not a scoring policy (use binpack or spread)");
        }

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Certificate and key files in PEM, and optionally a CA bundle that client certificates must chain to. */
    public record TlsFiles(Path certFile, Path keyFile, Path clientCaFile) {
        public TlsFiles {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
        }

        public boolean mutual() {
            return clientCaFile != null;
        }
    }

    /** Flag name → description (with default), in the order {@link #usage()} prints them. */
    public static final Map<String, String> FLAGS;

    static {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("scheduler-name", "schedulerName of the pods this extender schedules (default " + ServerDefaults.SCHEDULER_NAME + ")");
        f.put("kubeconfig", "kubeconfig file (default: the in-cluster service account)");
        f.put("http-port", "port of the extender verbs and /healthz /readyz /metrics (default " + ServerDefaults.HTTP_PORT + ")");
        f.put("ops-port", "plain-HTTP /healthz /readyz /metrics port (default " + ServerDefaults.OPS_PORT + ")");
        f.put("grpc-port", "gRPC port (default " + ServerDefaults.GRPC_PORT + ")");
        f.put("gang-deadline", "how long a gang reservation waits for its binds (default "
                + Durations.format(ServerDefaults.GANG_DEADLINE) + "; kube-scheduler's extender httpTimeout must exceed it)");
        f.put("scoring", "binpack or spread (default " + ServerDefaults.SCORING + ")");
        f.put("leader-elect", "elect a leader through a coordination.k8s.io Lease (default true)");
        f.put("lease-name", "Lease name (default " + ServerDefaults.LEASE_NAME + ")");
        f.put("lease-namespace", "Lease namespace (default: POD_NAMESPACE, else the service account's namespace)");
        f.put("tls-cert-file", "PEM certificate for HTTPS on the extender verbs (with --tls-key-file)");
        f.put("tls-key-file", "PEM private key for --tls-cert-file");
        f.put("grpc-tls-cert-file", "PEM certificate for gRPC TLS (with --grpc-tls-key-file)");
        f.put("grpc-tls-key-file", "PEM private key for --grpc-tls-cert-file");
        f.put("grpc-tls-client-ca-file", "PEM CA bundle: require client certificates signed by it (mTLS)");
        f.put("max-body-bytes", "largest accepted HTTP request body (default " + ServerDefaults.MAX_BODY_BYTES + ")");
        f.put("journal-window", "allocation events kept for resuming streams (default " + ServerDefaults.JOURNAL_WINDOW + ")");
        FLAGS = java.util.Collections.unmodifiableMap(f);
    }

    static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

    /** Parses {@code args} and {@code env} (normally {@code System.getenv()}). */
    public static ServerConfig parse(List<String> args, Map<String, String> env) {
        return parse(args, env, SERVICE_ACCOUNT_NAMESPACE);
    }

    static ServerConfig parse(List<String> args, Map<String, String> env, Path serviceAccountNamespaceFile) {
        Flags flags = Flags.parse(args, FLAGS.keySet(), env);

        String schedulerName = flags.string("scheduler-name", ServerDefaults.SCHEDULER_NAME).trim();
        if (schedulerName.isEmpty()) {
            throw new IllegalArgumentException("--scheduler-name must not be empty");
        }
        String kubeconfig = flags.optional("kubeconfig");
        if (kubeconfig != null) {
            requireReadable("kubeconfig", Path.of(kubeconfig));
        }
        int httpPort = port(flags, "http-port", ServerDefaults.HTTP_PORT);
        int opsPort = port(flags, "ops-port", ServerDefaults.OPS_PORT);
        int grpcPort = port(flags, "grpc-port", ServerDefaults.GRPC_PORT);
        distinct("http-port", httpPort, "ops-port", opsPort);
        distinct("http-port", httpPort, "grpc-port", grpcPort);
        distinct("ops-port", opsPort, "grpc-port", grpcPort);

        Duration gangDeadline = flags.duration("gang-deadline", ServerDefaults.GANG_DEADLINE);
        if (gangDeadline.isZero() || gangDeadline.isNegative()) {
            throw new IllegalArgumentException("--gang-deadline must be positive, got " + Durations.format(gangDeadline));
        }
        Scoring scoring = Scoring.parse("scoring", flags.string("scoring", ServerDefaults.SCORING));
        boolean leaderElect = flags.bool("leader-elect", true);
        String leaseName = flags.string("lease-name", ServerDefaults.LEASE_NAME).trim();
        if (leaseName.isEmpty()) {
            throw new IllegalArgumentException("--lease-name must not be empty");
        }
        String leaseNamespace = firstNonBlank(flags.optional("lease-namespace"), env.get("POD_NAMESPACE"),
                readNamespace(serviceAccountNamespaceFile));
        String podName = firstNonBlank(env.get("POD_NAME"), env.get("HOSTNAME"));
        String podIp = firstNonBlank(env.get("POD_IP"));
        if (leaderElect) {
            if (leaseNamespace == null) {
                throw new IllegalArgumentException("--lease-namespace is not set and neither POD_NAMESPACE nor the service account's "
                        + "namespace is known (set one, or pass --leader-elect=false)");
            }
            if (podName == null) {
                throw new IllegalArgumentException("POD_NAME is not set: leader election names the holder <POD_NAME>_<POD_IP> "
                        + "(set it from the downward API metadata.name, or pass --leader-elect=false)");
            }
            if (podIp == null) {
                throw new IllegalArgumentException("POD_IP is not set: standbys forward to the leader's IP "
                        + "(set it from the downward API status.podIP, or pass --leader-elect=false)");
            }
            try {
                new LeaderIdentity(podName, podIp);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("POD_NAME/POD_IP: " + e.getMessage());
            }
        }

        TlsFiles httpTls = tls(flags, "tls-cert-file", "tls-key-file", null);
        TlsFiles grpcTls = tls(flags, "grpc-tls-cert-file", "grpc-tls-key-file", "grpc-tls-client-ca-file");

        long maxBodyBytes = flags.longValue("max-body-bytes", ServerDefaults.MAX_BODY_BYTES);
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("--max-body-bytes must be at least 1, got " + maxBodyBytes);
        }
        int journalWindow = flags.integer("journal-window", ServerDefaults.JOURNAL_WINDOW);
        if (journalWindow < 1) {
            throw new IllegalArgumentException("--journal-window must be at least 1, got " + journalWindow);
        }
        return new ServerConfig(schedulerName, kubeconfig, httpPort, opsPort, grpcPort, gangDeadline, scoring, leaderElect,
                leaseName, leaseNamespace, httpTls, grpcTls, maxBodyBytes, journalWindow, podName, podIp);
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
        StringBuilder sb = new StringBuilder("Flags (each also as env MUSTER_<UPPER_SNAKE>, e.g. MUSTER_GANG_DEADLINE):\n");
        FLAGS.forEach((name, description) -> sb.append(String.format("  --%-26s %s%n", name, description)));
        sb.append("Environment (downward API): POD_NAME, POD_NAMESPACE, POD_IP\n");
        return sb.toString();
    }

    private static int port(Flags flags, String name, int defaultValue) {
        int port = flags.integer(name, defaultValue);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--" + name + ": " + port + " is not a port (0-65535; 0 picks a free port)");
        }
        return port;
    }

    private static void distinct(String a, int portA, String b, int portB) {
        if (portA != 0 && portA == portB) {
            throw new IllegalArgumentException("--" + a + " and --" + b + " are both " + portA + "; they must differ");
        }
    }

    private static TlsFiles tls(Flags flags, String certFlag, String keyFlag, String caFlag) {
        String cert = flags.optional(certFlag);
        String key = flags.optional(keyFlag);
        String ca = caFlag == null ? null : flags.optional(caFlag);
        if (cert == null && key == null) {
            if (ca != null) {
                throw new IllegalArgumentException("--" + caFlag + " needs --" + certFlag + " and --" + keyFlag);
            }
            return null;
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("--" + certFlag + " and --" + keyFlag + " go together; only --"
                    + (cert == null ? keyFlag : certFlag) + " is set");
        }
        return new TlsFiles(requireReadable(certFlag, Path.of(cert)), requireReadable(keyFlag, Path.of(key)),
                ca == null ? null : requireReadable(caFlag, Path.of(ca)));
    }

    private static Path requireReadable(String flag, Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("--" + flag + ": " + path + " does not exist or is not a file");
        }
        if (!Files.isReadable(path)) {
            throw new IllegalArgumentException("--" + flag + ": " + path + " is not readable");
        }
        return path;
    }

    private static String readNamespace(Path file) {
        if (file == null || !Files.isReadable(file)) {
            return null;
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return null;
        }
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return null;
    }
}
