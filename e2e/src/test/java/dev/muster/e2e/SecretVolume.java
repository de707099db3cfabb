package dev.muster.e2e;

import io.kubernetes.client.openapi.models.V1Secret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A Secret mounted as a volume in one pod, as the kubelet keeps it: the files are {@code key -> ..data/key} links,
 * {@code ..data} links to a timestamped folder, and an update writes a new folder and swaps {@code ..data} in one
 * rename (the kubelet's atomic writer), so a reader sees all files of one version of the Secret. The kubelet updates a
 * pod's Secret volumes on its periodic pod sync (about a minute apart, jittered), not when the Secret changes: here each
 * volume applies a change {@code lag} after it was made in the API server, and volumes of different pods have different
 * lags. A new pod mounts the Secret as it is at its start ({@link #mountNow}).
 *
 * <p>Thread-safe: one thread per volume polls the Secret (every 250 ms) and writes the files; readers only read.
 */
final class SecretVolume implements AutoCloseable {
    private final Kube admin;
    private final String namespace;
    private final String secret;
    private final Path dir;
    private final Duration lag;
    private final ScheduledExecutorService kubelet;
    private Map<String, byte[]> projected = Map.of(); // confined to the kubelet thread (and mountNow before it starts)
    private Map<String, byte[]> pending; // confined to the kubelet thread
    private long pendingSince;
    private long generation;

    private SecretVolume(Kube admin, String namespace, String secret, Path dir, Duration lag) {
        this.admin = admin;
        this.namespace = namespace;
        this.secret = secret;
        this.dir = dir;
        this.lag = lag;
        this.kubelet = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kubelet-volume-" + secret);
            t.setDaemon(true);
            return t;
        });
    }

    /** Mounts the Secret as it is now into {@code dir} and keeps it updated {@code lag} after each change. */
    static SecretVolume mount(Kube admin, String namespace, String secret, Path dir, Duration lag) throws IOException {
        SecretVolume v = new SecretVolume(admin, namespace, secret, dir, lag);
        v.mountNow();
        v.kubelet.scheduleWithFixedDelay(v::sync, 250, 250, TimeUnit.MILLISECONDS);
        return v;
    }

    Path dir() {
        return dir;
    }

    Path file(String key) {
        return dir.resolve(key);
    }

    private void mountNow() throws IOException {
        Files.createDirectories(dir);
        Map<String, byte[]> data = read();
        write(data);
        projected = data;
    }

    private void sync() {
        try {
            Map<String, byte[]> now = read();
            if (same(now, projected)) {
                pending = null;
                return;
            }
            if (pending == null || !same(now, pending)) {
                pending = now;
                pendingSince = System.nanoTime();
            }
            if (System.nanoTime() - pendingSince >= lag.toNanos()) {
                write(pending);
                projected = pending;
                pending = null;
            }
        } catch (IOException | RuntimeException e) {
            System.out.printf("e2e: volume of %s: %s (tried again)%n", secret, e);
        }
    }

    private Map<String, byte[]> read() {
        V1Secret s = Kube.call("read " + secret, () -> admin.core().readNamespacedSecret(secret, namespace).execute());
        return s.getData() == null ? Map.of() : new HashMap<>(s.getData());
    }

    /** The kubelet's atomic writer: a new timestamped folder, {@code ..data} swapped to it by a rename, links per key. */
    private void write(Map<String, byte[]> data) throws IOException {
        Path version = dir.resolve("..v" + System.currentTimeMillis() + "_" + (++generation));
        Files.createDirectories(version);
        for (var e : data.entrySet()) {
            Files.write(version.resolve(e.getKey()), e.getValue());
        }
        Path tmp = dir.resolve("..data_tmp");
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, version.getFileName());
        Path old = Files.isSymbolicLink(dir.resolve("..data")) ? dir.resolve(Files.readSymbolicLink(dir.resolve("..data"))) : null;
        Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        for (String key : data.keySet()) {
            Path link = dir.resolve(key);
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data", key));
            }
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                if (!name.startsWith("..") && !data.containsKey(name)) {
                    Files.delete(p); // a key the Secret no longer has
                }
            }
        }
        if (old != null && !old.equals(version)) {
            try (var files = Files.list(old)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(old);
        }
    }

    private static boolean same(Map<String, byte[]> a, Map<String, byte[]> b) {
        return a.keySet().equals(b.keySet()) && a.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), b.get(e.getKey())));
    }

    @Override
    public void close() {
        kubelet.shutdownNow();
    }
}
