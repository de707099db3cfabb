package dev.muster.common.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.function.LongSupplier;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A client's trust in a CA file that is read again when it changes (a Secret volume updated by a rotation): each
 * handshake checks the server against the file as it is now, looked at at most once a second. For a client that
 * presents a certificate, {@link CertificateFiles} does the same for its certificate, key and CA together; this is
 * for a client that presents none. A changed file that cannot be read keeps the trust read before (said in the log).
 *
 * <p>Thread-safe: the loaded trust is one immutable value behind a volatile field; a reload is serialized on this
 * object and a handshake never waits for one.
 */
public final class TrustFiles extends DelegatingTrustManager {
    private static final System.Logger LOG = System.getLogger(TrustFiles.class.getName());

    private record Loaded(List<Object> stamp, X509ExtendedTrustManager trust) {}

    private final Path caFile;
    private final LongSupplier nanoTime;
    private volatile Loaded loaded;
    private volatile long nextCheck;

    /** Reads the file now: a bad file fails here, naming it. */
    public TrustFiles(Path caFile) {
        this(caFile, System::nanoTime);
    }

    TrustFiles(Path caFile, LongSupplier nanoTime) {
        this.caFile = caFile;
        this.nanoTime = nanoTime;
        this.loaded = load(stamp());
        this.nextCheck = nanoTime.getAsLong() + CertificateFiles.CHECK_EVERY_NANOS;
    }

    @Override
    X509ExtendedTrustManager trust() {
        long now = nanoTime.getAsLong();
        if (now - nextCheck >= 0) {
            reloadIfChanged(now);
        }
        return loaded.trust();
    }

    private synchronized void reloadIfChanged(long now) {
        if (now - nextCheck < 0) {
            return;
        }
        nextCheck = now + CertificateFiles.CHECK_EVERY_NANOS;
        try {
            List<Object> stamp = stamp();
            if (!stamp.equals(loaded.stamp())) {
                loaded = load(stamp);
                LOG.log(System.Logger.Level.INFO, "CA file " + caFile + " changed: new connections check servers against it");
            }
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "CA file changed but cannot be used (" + e.getMessage() + "); still using the one read before");
        }
    }

    private List<Object> stamp() {
        try {
            return List.of(Files.getLastModifiedTime(caFile), Files.size(caFile));
        } catch (IOException e) {
            throw new IllegalArgumentException(caFile + ": " + e.getMessage(), e);
        }
    }

    private Loaded load(List<Object> stamp) {
        try {
            return new Loaded(stamp, PemTls.trustManager(caFile));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("CA file " + caFile + ": " + e.getMessage(), e);
        }
    }
}
