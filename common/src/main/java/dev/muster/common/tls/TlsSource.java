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
    /** One version of the Secret's data: {@code version} changes whenever {@code data} does. */
    record Snapshot(String version, Map<String, byte[]> data) {
        public Snapshot {
            data = Map.copyOf(data);
        }
    }

    /** The data as last read. */
    Snapshot current();

    /** For logs and errors, e.g. {@code Secret muster-system/muster-extender-tls}. */
    String describe();
}
