package dev.muster.common.config;

import dev.muster.common.leader.LeaderIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The leader-election part of both processes' configuration: {@code --leader-elect}, {@code --lease-name},
 * {@code --lease-namespace} (else POD_NAMESPACE, else the service account's namespace) and the holder
 * identity from the downward API (POD_NAME, else HOSTNAME; POD_IP). With election on, everything must be
 * known; each error names what is missing and how to set it. Immutable.
 */
public record LeaderElectionSettings(boolean leaderElect, String leaseName, String leaseNamespace, String podName, String podIp) {
    /** Where Kubernetes mounts the pod's namespace. */
    public static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

    public static LeaderElectionSettings parse(Flags flags, Map<String, String> env, String defaultLeaseName, Path serviceAccountNamespaceFile) {
        boolean leaderElect = flags.bool("leader-elect", true);
        String leaseName = flags.string("lease-name", defaultLeaseName).trim();
        if (leaseName.isEmpty()) {
            throw new IllegalArgumentException("--lease-name must not be empty");
        }
        String leaseNamespace = firstNonBlank(flags.optional("lease-namespace"), env.get("POD_NAMESPACE"), readNamespace(serviceAccountNamespaceFile));
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
                throw new IllegalArgumentException("POD_IP is not set: the Lease holder is <POD_NAME>_<POD_IP> and standbys reach the "
                        + "leader at that IP (set it from the downward API status.podIP, or pass --leader-elect=false)");
            }
            try {
                new LeaderIdentity(podName, podIp);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("POD_NAME/POD_IP: " + e.getMessage());
            }
        }
        return new LeaderElectionSettings(leaderElect, leaseName, leaseNamespace, podName, podIp);
    }

    static String readNamespace(Path file) {
        if (file == null || !Files.isReadable(file)) {
            return null;
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return null;
        }
    }

    static String firstNonBlank(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return null;
    }
}
