package dev.muster.common.tls;

import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The CAs a party checks its peers against: those of its CA file (or Secret key) as it is now and, for a grace period
 * after a change, the CAs the change removed. During a CA rotation the parties take up the new material at different
 * moments (a Secret volume lags the API by up to a minute or two; kube-scheduler reads its CA only at start), so a peer
 * still presenting a certificate of the replaced CA is accepted until it too has moved on. A CA removed on purpose (say,
 * its key leaked) is still trusted for that grace period: {@link CertificateFiles#PREVIOUS_CA_GRACE}.
 *
 * <p>Immutable; thread-safe.
 */
final class CaTrust {
    private final List<X509Certificate> current;
    private final List<X509Certificate> replaced;
    private final long replacedUntil;
    private final X509ExtendedTrustManager trust;

    private CaTrust(List<X509Certificate> current, List<X509Certificate> replaced, long replacedUntil) throws GeneralSecurityException {
        this.current = List.copyOf(current);
        this.replaced = List.copyOf(replaced);
        this.replacedUntil = replacedUntil;
        List<X509Certificate> all = new ArrayList<>(current);
        all.addAll(replaced);
        this.trust = PemTls.trustManager(all);
    }

    /** Trusts {@code cas} only. */
    static CaTrust of(List<X509Certificate> cas) throws GeneralSecurityException {
        return new CaTrust(cas, List.of(), 0);
    }

    /**
     * After the CA file changed to {@code cas} at {@code now}: trusts {@code cas} and, until {@code now + graceNanos},
     * every CA trusted before that {@code cas} lacks.
     */
    CaTrust next(List<X509Certificate> cas, long now, long graceNanos) throws GeneralSecurityException {
        List<X509Certificate> gone = new ArrayList<>();
        for (X509Certificate c : expire(now).all()) {
            if (!cas.contains(c) && !gone.contains(c)) {
                gone.add(c);
            }
        }
        return gone.isEmpty() || graceNanos <= 0 ? of(cas) : new CaTrust(cas, gone, now + graceNanos);
    }

    /**
     * What to trust once the CA file (or Secret key) was read as {@code read} at {@code now}. After {@code before} (the
     * load it replaces; null at first): {@link #next}. At a first load made after a Secret changed
     * ({@code replacedByChange}: its CAs before that change, at {@code changedAt}): the CAs it replaced stay trusted for
     * what is left of their grace period. Else {@code read} alone.
     */
    static CaTrust afterRead(List<X509Certificate> read, CaTrust before, List<X509Certificate> replacedByChange, long changedAt, long now,
            long graceNanos) throws GeneralSecurityException {
        if (before != null) {
            return before.next(read, now, graceNanos);
        }
        if (replacedByChange != null) {
            return of(replacedByChange).next(read, changedAt, graceNanos).expire(now);
        }
        return of(read);
    }

    /** This, or, once the grace period is over at {@code now}, the same without the replaced CAs. */
    CaTrust expire(long now) throws GeneralSecurityException {
        return replaced.isEmpty() || now - replacedUntil < 0 ? this : of(current);
    }

    /**
     * Whether one of the CAs of the file as read (not the replaced ones) issued a certificate of {@code chain}: a peer
     * that trusts that file accepts the chain. Checked by name and signature, not by dates.
     */
    boolean signsAny(X509Certificate[] chain) {
        for (X509Certificate c : chain) {
            for (X509Certificate ca : current) {
                if (ca.getSubjectX500Principal().equals(c.getIssuerX500Principal()) && signed(c, ca)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean signed(X509Certificate c, X509Certificate by) {
        try {
            c.verify(by.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** The replaced CAs still trusted (empty when none). */
    List<X509Certificate> replaced() {
        return replaced;
    }

    /** The replaced CAs still trusted, for the log: each one's common name and serial number. */
    String replacedNames() {
        return replaced.stream().map(c -> "\"" + CallerRoles.commonName(c) + "\" (serial " + c.getSerialNumber().toString(16) + ")")
                .collect(java.util.stream.Collectors.joining(", "));
    }

    X509ExtendedTrustManager trust() {
        return trust;
    }

    private List<X509Certificate> all() {
        List<X509Certificate> all = new ArrayList<>(current);
        all.addAll(replaced);
        return all;
    }
}
