package dev.muster.common.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A certificate, its key and (optionally) the CA that peers' certificates must chain to, from PEM files that are read
 * again when they change: a Kubernetes Secret volume is updated in place when cert-manager renews a certificate or a
 * {@code helm upgrade} rewrites the Secret, and new connections then use the new files without a restart.
 *
 * <p>Every handshake asks {@link #keyManager()} and {@link #trustManager()}, which look at the files' modification
 * times and sizes at most once per {@link #CHECK_EVERY_NANOS} (a Secret volume swaps all files at once through a
 * symbolic link). Files that changed but cannot be read (say, half written) keep the previous material in use and are
 * said in the log; the next check tries again. Connections already open keep the certificates they were made with.
 *
 * <p>A handshake asks the key manager three times (which alias, its chain, its key); a reload may come between. The
 * alias names the load it was chosen from, and the chain and the key are taken from that same load, so a handshake
 * never pairs one load's chain with another's key (the load before the current one is kept for such handshakes).
 *
 * <p>Or, given a {@link TlsSource}, the same files' names are read as keys of a Secret watched through the Kubernetes
 * API: a change is taken up within about a second of the API server having it, not when the kubelet next updates the
 * Secret volume (up to a minute or two later).
 *
 * <p>When the CA changes, the CAs it replaced are still trusted for {@link #PREVIOUS_CA_GRACE} ({@link CaTrust}): a
 * peer whose own copy of the Secret has not changed yet (a volume that lags) keeps being accepted meanwhile.
 *
 * <p>A server whose peers read their CA only when they start (kube-scheduler reads its extender {@code caFile} once) can
 * {@linkplain #holdOnCaChange hold} its certificate across a CA change: when the files change to a certificate that no
 * CA trusted before signs, the server goes on presenting the certificate it presented before, until {@link #release}
 * (the peers that trust only the old CA are gone) or for at most the hold's longest. Clients present the files as they
 * are now whatever the hold; the CAs trusted are always the files' (with the replaced ones' grace period).
 *
 * <p>Thread-safe: the loaded material (the current load, the one before and the one a server presents: {@link CertificateLoads}) is one
 * immutable value behind a volatile field; a reload or a release is serialized on this object, and a handshake never
 * waits for one (it uses what was loaded before).
 */
public final class CertificateFiles {
    private static final System.Logger LOG = System.getLogger(CertificateFiles.class.getName());
    /** How often the files' times are looked at, at most: once a second. */
    static final long CHECK_EVERY_NANOS = 1_000_000_000L;
    /**
     * How long a CA that a change removed is still trusted: longer than a kubelet takes to update a Secret volume (about
     * a minute, jittered) plus a kube-scheduler rollout, so that every party has moved to the new material by then.
     */
    public static final java.time.Duration PREVIOUS_CA_GRACE = java.time.Duration.ofMinutes(10);

    private final Path certFile;
    private final Path keyFile;
    private final Path caFile;
    private final TlsSource source;
    private final long graceNanos;
    private final LongSupplier nanoTime;
    private volatile long holdNanos; // 0: a CA change is presented at once (no hold)
    private volatile CertificateLoads loads;
    private volatile long nextCheck;
    private long generations; // guarded by this

    /**
     * Reads the files now: a bad file fails here, at start-up, with its name.
     *
     * @param caFile null when peers are not checked against a CA of ours (a server that asks for no client
     *               certificate, or a client that trusts the JVM's CAs)
     * @throws IllegalArgumentException naming the file and the problem
     */
    public CertificateFiles(Path certFile, Path keyFile, Path caFile) {
        this(certFile, keyFile, caFile, (TlsSource) null);
    }

    /**
     * As {@link #CertificateFiles(Path, Path, Path)}, reading the files' names as keys of {@code source} when it is not
     * null (a Secret watched through the API).
     *
     * @throws IllegalArgumentException naming the Secret and the key that is missing or bad
     */
    public CertificateFiles(Path certFile, Path keyFile, Path caFile, TlsSource source) {
        this(certFile, keyFile, caFile, source, PREVIOUS_CA_GRACE.toNanos(), System::nanoTime);
    }

    CertificateFiles(Path certFile, Path keyFile, Path caFile, LongSupplier nanoTime) {
        this(certFile, keyFile, caFile, null, PREVIOUS_CA_GRACE.toNanos(), nanoTime);
    }

    CertificateFiles(Path certFile, Path keyFile, Path caFile, TlsSource source, long graceNanos, LongSupplier nanoTime) {
        this.certFile = Objects.requireNonNull(certFile, "certFile");
        this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
        this.caFile = caFile;
        this.source = source;
        this.graceNanos = graceNanos;
        this.nanoTime = nanoTime;
        TlsSource.Snapshot snapshot = source == null ? null : source.current();
        this.loads = CertificateLoads.first(load(stamps(snapshot), snapshot, null, nanoTime.getAsLong()));
        this.nextCheck = nanoTime.getAsLong() + CHECK_EVERY_NANOS;
    }

    public Path certFile() {
        return certFile;
    }

    public Path keyFile() {
        return keyFile;
    }

    /** The CA peers' certificates must chain to; null when none was given. */
    public Path caFile() {
        return caFile;
    }

    /** The certificate a server presents now (tests and logs: its serial number changes with a rotation). */
    public X509Certificate certificate() {
        current();
        return loads.presented().leaf();
    }

    /** The certificate of the files as they are now: {@link #certificate()} unless a CA change is held. */
    public X509Certificate loaded() {
        return current().leaf();
    }

    /**
     * From now on, when the files change to a certificate that none of the CAs trusted before signs, a server keeps
     * presenting its certificate from before until {@link #release} or for at most {@code longest}.
     */
    public CertificateFiles holdOnCaChange(java.time.Duration longest) {
        this.holdNanos = longest.toNanos();
        return this;
    }

    /** Whether a server presents a certificate from before a CA change ({@link #holdOnCaChange}). */
    public boolean holding() {
        current();
        return loads.holding();
    }

    /** Ends a hold: servers present the files' certificate from now on; {@code why} goes into the log. */
    public synchronized void release(String why) {
        CertificateLoads l = loads;
        if (!l.holding()) {
            return;
        }
        loads = l.released();
        LOG.log(System.Logger.Level.INFO, "now presenting certificate serial " + l.current().leaf().getSerialNumber().toString(16)
                + " of the new CA to new connections (" + this + "): " + why);
    }

    /**
     * Presents the certificate of the files as they are now: as a client always, as a server unless a CA change is held
     * ({@link #holdOnCaChange}), when it presents the certificate from before the change.
     */
    public X509ExtendedKeyManager keyManager() {
        return new CurrentKeys(this::current, this::presented, alias -> loads.byAlias(alias));
    }

    /**
     * Checks peers against the CA of the files as they are now. {@code checkHostname}: a client also checks that the
     * server's certificate names the host it dialled (the usual rule); false where it dials replicas by pod IP, which
     * no certificate names, and the CA, one of Muster's own that signs only Muster's components, is the check.
     *
     * @throws IllegalStateException when no CA file was given
     */
    public X509ExtendedTrustManager trustManager(boolean checkHostname) {
        if (caFile == null) {
            throw new IllegalStateException("no CA file: peers cannot be checked against " + certFile + "'s CA");
        }
        return new PeerTrust(() -> current().trust(), checkHostname, server -> true);
    }

    /** A TLS context presenting the certificate and, with a CA file, checking peers against it (servers: clients' certificates). */
    public SSLContext context(boolean checkHostname) {
        return context(checkHostname, server -> true);
    }

    /**
     * As {@link #context(boolean)}; a client also accepts only a server whose certificate passes {@code server} (with
     * {@code checkHostname} false, where it dials replicas by pod IP: the identity the certificate names is the check).
     */
    public SSLContext context(boolean checkHostname, Predicate<X509Certificate> server) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(new KeyManager[] {keyManager()}, caFile == null ? null : new TrustManager[] {new PeerTrust(() -> current().trust(), checkHostname, server)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS context: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return (source == null ? "" : source.describe() + ": ") + "certificate " + certFile + ", key " + keyFile + (caFile == null ? "" : ", CA " + caFile);
    }

    /** What a server presents now: the current load, or the one from before a held CA change. */
    private CertificateLoad presented() {
        current();
        return loads.presented();
    }

    private CertificateLoad current() {
        long now = nanoTime.getAsLong();
        if (now - nextCheck >= 0) {
            reloadIfChanged(now);
        }
        return loads.current();
    }

    private synchronized void reloadIfChanged(long now) {
        if (now - nextCheck < 0) {
            return; // another handshake checked meanwhile
        }
        nextCheck = now + CHECK_EVERY_NANOS;
        expireReplacedCas(now);
        if (loads.heldFor(holdNanos, now)) {
            release("held for the longest, " + java.time.Duration.ofNanos(holdNanos).toSeconds() + " s");
        }
        List<Object> stamps;
        TlsSource.Snapshot snapshot = source == null ? null : source.current();
        try {
            stamps = stamps(snapshot);
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "TLS files cannot be read (" + e.getMessage() + "); still using the ones read before");
            return;
        }
        CertificateLoads before = loads;
        if (stamps.equals(before.current().stamps())) {
            return;
        }
        try {
            CertificateLoad fresh = load(stamps, snapshot, before.current(), now);
            CertificateLoad shown = before.presented();
            loads = before.changedTo(fresh, holdNanos > 0, now);
            boolean hold = loads.holding();
            LOG.log(System.Logger.Level.INFO, "TLS files changed" + (source == null ? "" : " (" + source.describe() + ", read through the API)")
                    + (hold ? ": a certificate of a CA not trusted before; servers keep presenting certificate serial "
                    + shown.leaf().getSerialNumber().toString(16) + " to peers that trust only the old CA until they are gone (at most "
                    + java.time.Duration.ofNanos(holdNanos).toSeconds() + " s), then certificate serial " : ": now presenting certificate serial ")
                    + fresh.leaf().getSerialNumber().toString(16)
                    + " (" + fresh.leaf().getSubjectX500Principal().getName() + ", valid until " + fresh.leaf().getNotAfter().toInstant() + ")"
                    + (caFile == null ? "" : " and checking peers against " + caFile) + " for new connections"
                    + (fresh.cas() == null || fresh.cas().replaced().isEmpty() ? ""
                    : "; the replaced CA " + fresh.cas().replacedNames() + " is still trusted for " + java.time.Duration.ofNanos(graceNanos)));
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "TLS files changed but cannot be used (" + e.getMessage()
                    + "); still using the ones read before, trying again in a second");
        }
    }

    /** Once their grace period is over, the replaced CAs are no longer trusted (the keys stay as they are). */
    private void expireReplacedCas(long now) {
        CertificateLoads l = loads;
        CertificateLoad cur = l.current();
        if (cur.cas() == null || cur.cas().replaced().isEmpty()) {
            return;
        }
        try {
            CaTrust after = cur.cas().expire(now);
            if (after != cur.cas()) {
                loads = l.currentTrusting(after);
                LOG.log(System.Logger.Level.INFO, "the replaced CA " + cur.cas().replacedNames() + " is no longer trusted (" + this + ")");
            }
        } catch (GeneralSecurityException e) {
            LOG.log(System.Logger.Level.WARNING, "dropping the replaced CAs failed (" + e.getMessage() + "); tried again in a second");
        }
    }

    private List<Object> stamps(TlsSource.Snapshot snapshot) {
        if (snapshot != null) {
            return List.of(snapshot.version());
        }
        List<Object> out = new ArrayList<>(6);
        for (Path p : caFile == null ? List.of(certFile, keyFile) : List.of(certFile, keyFile, caFile)) {
            try {
                FileTime t = Files.getLastModifiedTime(p);
                out.add(t);
                out.add(Files.size(p));
            } catch (IOException e) {
                throw new IllegalArgumentException(p + ": " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }

    /** The bytes of {@code file}, or of its name's key in {@code snapshot}. */
    private byte[] bytes(Path file, TlsSource.Snapshot snapshot) throws IOException {
        if (snapshot == null) {
            return Files.readAllBytes(file);
        }
        String key = file.getFileName().toString();
        byte[] b = snapshot.data().get(key);
        if (b == null) {
            throw new IllegalArgumentException(source.describe() + " has no key " + key + " (the name of " + file + ")");
        }
        return b;
    }

    private String name(Path file, TlsSource.Snapshot snapshot) {
        return snapshot == null ? file.toString() : source.describe() + " key " + file.getFileName();
    }

    /** Reads the material; {@code before} (null at start) is the load it replaces, whose CAs stay trusted for a while. */
    private synchronized CertificateLoad load(List<Object> stamps, TlsSource.Snapshot snapshot, CertificateLoad before, long now) {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            X509Certificate[] chain = PemTls.certificates(name(certFile, snapshot), bytes(certFile, snapshot)).toArray(X509Certificate[]::new);
            PrivateKey key = PemTls.privateKey(name(keyFile, snapshot), bytes(keyFile, snapshot));
            if (!chain[0].getPublicKey().equals(derivedPublicKey(chain[0], key))) {
                throw new IllegalArgumentException(name(keyFile, snapshot) + " is not the key of the certificate in " + name(certFile, snapshot));
            }
            ks.setKeyEntry("muster", key, new char[0], chain);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            X509ExtendedKeyManager keys = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
            CaTrust cas = null;
            if (caFile != null) {
                List<X509Certificate> read = PemTls.certificates(name(caFile, snapshot), bytes(caFile, snapshot));
                CaTrust trusted = before == null ? null : before.cas();
                byte[] replaced = trusted != null || snapshot == null ? null : snapshot.replaced().get(caFile.getFileName().toString());
                cas = CaTrust.afterRead(read, trusted, replaced == null ? null
                        : PemTls.certificates(source.describe() + " (before its change) key " + caFile.getFileName(), replaced),
                        snapshot == null ? 0 : snapshot.changedAtNanos(), now, graceNanos);
            }
            return new CertificateLoad(stamps, keys, cas, chain, key, "muster-" + ++generations);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("TLS from " + this + ": " + e.getMessage(), e);
        }
    }

    /** The certificate's own public key when the key matches it (checked by signing a probe), else null. */
    private static java.security.PublicKey derivedPublicKey(X509Certificate cert, PrivateKey key) throws GeneralSecurityException {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> null;
        };
        if (alg == null) {
            return cert.getPublicKey(); // Ed25519 and others: left to the handshake
        }
        byte[] probe = "muster".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.security.Signature s = java.security.Signature.getInstance(alg);
        s.initSign(key);
        s.update(probe);
        byte[] sig = s.sign();
        java.security.Signature v = java.security.Signature.getInstance(alg);
        v.initVerify(cert.getPublicKey());
        v.update(probe);
        return v.verify(sig) ? cert.getPublicKey() : null;
    }
}
