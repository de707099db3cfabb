package dev.muster.common.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * What one read of {@link CertificateFiles}' files gave, and the stamps of the files it was read from. Immutable;
 * {@code alias} names this load to the JDK's TLS ({@link CurrentKeys}).
 *
 * @param cas null when no CA file was given
 */
record CertificateLoad(List<Object> stamps, X509ExtendedKeyManager keys, CaTrust cas, X509Certificate[] chain,
                       PrivateKey key, String alias) {
    X509Certificate leaf() {
        return chain[0];
    }

    X509ExtendedTrustManager trust() {
        return cas == null ? null : cas.trust();
    }

    /** This load with other CAs trusted (the replaced ones dropped); the keys stay as they are. */
    CertificateLoad trusting(CaTrust other) {
        return new CertificateLoad(stamps, keys, other, chain, key, alias);
    }
}
