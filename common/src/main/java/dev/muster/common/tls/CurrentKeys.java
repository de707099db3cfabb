package dev.muster.common.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of {@link CertificateFiles}: a client chooses from the load of the files as they are now, a server
 * from the load it presents; either under an alias naming that load, and the chain and the key of an alias come from
 * the load it names. A handshake asks three times (which alias, its chain, its key) and a reload may come between, so
 * it never pairs one load's chain with another's key.
 *
 * <p>A client presents its one certificate whatever CAs the server's request names (as Go's clients do): a server may
 * name the CAs it trusted when it started (netty's OpenSSL server takes the list once), so after a CA rotation a
 * client whose certificate comes from the new CA would otherwise send none and be refused, though the server's own
 * check of the chain, made against its files as they are now, accepts it.
 *
 * <p>Thread-safe: holds no state of its own; the suppliers read the files' volatile loads.
 */
final class CurrentKeys extends X509ExtendedKeyManager {
    private final Supplier<CertificateLoad> current;
    private final Supplier<CertificateLoad> presented;
    private final Function<String, CertificateLoad> byAlias;

    /**
     * @param current   the load of the files as they are now (a client presents it)
     * @param presented the load a server presents
     * @param byAlias   the load an alias names, or null when it is no longer kept
     */
    CurrentKeys(Supplier<CertificateLoad> current, Supplier<CertificateLoad> presented, Function<String, CertificateLoad> byAlias) {
        this.current = current;
        this.presented = presented;
        this.byAlias = byAlias;
    }

    private static String[] aliases(String[] chosen, CertificateLoad from) {
        return chosen == null ? null : new String[] {from.alias()};
    }

    private static String alias(String chosen, CertificateLoad from) {
        return chosen == null ? null : from.alias();
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        CertificateLoad l = current.get();
        return aliases(l.keys().getClientAliases(keyType, null), l);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        CertificateLoad l = current.get();
        return alias(l.keys().chooseClientAlias(keyType, null, socket), l);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        CertificateLoad l = presented.get();
        return aliases(l.keys().getServerAliases(keyType, issuers), l);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        CertificateLoad l = presented.get();
        return alias(l.keys().chooseServerAlias(keyType, issuers, socket), l);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        CertificateLoad l = byAlias.apply(alias);
        return l == null ? null : l.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        CertificateLoad l = byAlias.apply(alias);
        return l == null ? null : l.key();
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        CertificateLoad l = current.get();
        return alias(l.keys().chooseEngineClientAlias(keyType, null, engine), l);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        CertificateLoad l = presented.get();
        return alias(l.keys().chooseEngineServerAlias(keyType, issuers, engine), l);
    }
}
