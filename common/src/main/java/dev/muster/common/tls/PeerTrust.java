package dev.muster.common.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Checks peers with the trust manager {@code current} gives at each handshake (a {@link CertificateFiles}' CAs as they
 * are now, with a replaced CA during its grace period: {@link CaTrust}); without {@code checkHostname}, chains only. A
 * client also accepts only a server whose certificate passes {@code server}. Thread-safe when {@code current} is.
 */
final class PeerTrust extends DelegatingTrustManager {
    private final Supplier<X509ExtendedTrustManager> current;
    private final boolean checkHostname;
    private final Predicate<X509Certificate> server;

    PeerTrust(Supplier<X509ExtendedTrustManager> current, boolean checkHostname, Predicate<X509Certificate> server) {
        this.current = current;
        this.checkHostname = checkHostname;
        this.server = server;
    }

    /** A server chain the CA signed must also name an identity this client accepts. */
    private void checkIdentity(X509Certificate[] chain) throws CertificateException {
        if (chain.length == 0 || !server.test(chain[0])) {
            throw new CertificateException("the server's certificate \"" + (chain.length == 0 ? "" : CallerRoles.commonName(chain[0]))
                    + "\" is signed by the CA but is not the identity this client expects of the server");
        }
    }

    @Override
    X509ExtendedTrustManager trust() {
        return current.get();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        super.checkServerTrusted(chain, authType);
        checkIdentity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        if (checkHostname) {
            trust().checkServerTrusted(chain, authType, socket);
        } else {
            trust().checkServerTrusted(chain, authType);
        }
        checkIdentity(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        if (checkHostname) {
            trust().checkServerTrusted(chain, authType, engine);
        } else {
            trust().checkServerTrusted(chain, authType);
        }
        checkIdentity(chain);
    }
}
