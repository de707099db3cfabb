package dev.muster.common.tls;

import java.util.Map;

/**
 * Where {@link CertificateFiles} reads its PEM material when not from files: the data of one Kubernetes Secret as the
 * API server has it now (a Secret watched through the API, so a change is used within about a second instead of when
 * the kubelet next updates the Secret volume). The files' names are the Secret's keys: {@code /etc/muster/tls/tls.crt}
 * is read from the key {@code tls.crt}.
 *
 * <p>Implementations are thread-safe: {@link #current()} returns an immutable snapshot.
 */
public interface TlsSource {
    /**
     * One version of the Secret's data: {@code version} changes whenever {@code data} does. {@code replaced}: the data
     * this version replaced (empty for the first read), at {@code changedAtNanos} ({@link System#nanoTime()}), so that
     * a reader made after the change still trusts the replaced CA for its grace period.
     */
    record Snapshot(String version, Map<String, byte[]> data, Map<String, byte[]> replaced, long changedAtNanos) {
        public Snapshot {
            data = Map.copyOf(data);
            replaced = Map.copyOf(replaced);
        }

        /** A first read: nothing replaced. */
        public Snapshot(String version, Map<String, byte[]> data) {
            this(version, data, Map.of(), 0);
        }
    }

    /** The data as last read. */
    Snapshot current();

    /** For logs and errors, e.g. {@code Secret muster-system/muster-extender-tls}. */
    String describe();

    /** A source named {@code describe} whose data is what {@code current} gives at each read. */
    static TlsSource of(String describe, java.util.function.Supplier<Snapshot> current) {
        return new TlsSource() {
            @Override
            public Snapshot current() {
                return current.get();
            }

            @Override
            public String describe() {
                return describe;
            }
        };
    }
}
