package dev.muster.controller.rpc;

import dev.muster.common.rpc.ServerTls;
import dev.muster.common.tls.CertificateFiles;
import dev.muster.common.tls.TlsSource;
import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.nio.file.Path;
import java.util.Optional;

/**
 * TLS for a gRPC client, from PEM files: the CA that signed the server's certificate (null = the JVM's
 * default trust store) and, for mutual TLS, the client's certificate chain and PKCS#8 private key.
 *
 * @param ca null to trust the JVM's default CAs
 * @param certChain null unless the server requires client certificates (then {@code privateKey} too)
 * @param source null to read the files; else the Secret whose keys the files' names are (a client certificate is
 *               then required: {@link CertificateFiles})
 */
public record ClientTls(Path ca, Path certChain, Path privateKey, TlsSource source) {
    public ClientTls {
        if ((certChain == null) != (privateKey == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and a key needs its certificate");
        }
        if (source != null && certChain == null) {
            throw new IllegalArgumentException("TLS material from " + source.describe() + " needs a client certificate and key");
        }
    }

    /** From the files. */
    public ClientTls(Path ca, Path certChain, Path privateKey) {
        this(ca, certChain, privateKey, null);
    }

    /** The same, with the files' names read as keys of {@code from} (a Secret watched through the API). */
    public ClientTls from(TlsSource from) {
        return new ClientTls(ca, certChain, privateKey, from);
    }

    /**
     * TLS settings from the optional file flags (e.g. {@code --extender-tls-ca-file},
     * {@code --extender-tls-cert-file}, {@code --extender-tls-key-file}): empty when none is given.
     *
     * @param flagPrefix the flags' common prefix, e.g. {@code "--extender-tls"}, used in error messages
     * @throws IllegalArgumentException when a certificate comes without its key or a file is not readable
     */
    public static Optional<ClientTls> fromFiles(String flagPrefix, String caFile, String certFile, String keyFile) {
        boolean ca = ServerTls.present(caFile);
        boolean cert = ServerTls.present(certFile);
        boolean key = ServerTls.present(keyFile);
        if (!ca && !cert && !key) {
            return Optional.empty();
        }
        if (cert != key) {
            throw new IllegalArgumentException("gRPC client TLS needs both a certificate file and a key file"
                    + " (" + flagPrefix + "-cert-file " + (cert ? "given" : "missing") + ", " + flagPrefix + "-key-file " + (key ? "given" : "missing") + ")");
        }
        return Optional.of(new ClientTls(ca ? ServerTls.readable(caFile, flagPrefix + "-ca-file") : null,
                cert ? ServerTls.readable(certFile, flagPrefix + "-cert-file") : null,
                key ? ServerTls.readable(keyFile, flagPrefix + "-key-file") : null));
    }

    /**
     * Reads the files now, so a bad file fails at start-up with its name. The client certificate and the CA are read
     * again when their files change ({@link CertificateFiles}, {@link dev.muster.common.tls.TrustFiles}): a renewed
     * certificate is presented, and a rotated CA checked against, on the next connection, with no restart.
     */
    public ChannelCredentials credentials() {
        TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
        if (certChain != null) {
            CertificateFiles files = new CertificateFiles(certChain, privateKey, ca, source);
            b.keyManager(files.keyManager());
            if (ca != null) {
                b.trustManager(files.trustManager(true));
            }
        } else if (ca != null) {
            b.trustManager(new dev.muster.common.tls.TrustFiles(ca));
        }
        return b.build();
    }
}
