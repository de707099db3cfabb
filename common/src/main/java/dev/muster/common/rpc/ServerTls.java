package dev.muster.common.rpc;

import dev.muster.common.tls.CertificateFiles;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS for a gRPC server, from PEM files: a certificate chain and its PKCS#8 private key, and optionally
 * a client CA bundle. With a client CA the server requires every client to present a certificate signed
 * by it (mutual TLS); without one it only encrypts and authenticates itself.
 *
 * @param clientCa null for server-side TLS only
 * @param source   null to read the files; else the Secret whose keys the files' names are ({@link CertificateFiles})
 */
public record ServerTls(Path certChain, Path privateKey, Path clientCa, dev.muster.common.tls.TlsSource source) {
    public ServerTls {
        Objects.requireNonNull(certChain, "certChain");
        Objects.requireNonNull(privateKey, "privateKey");
    }

    /** From the files. */
    public ServerTls(Path certChain, Path privateKey, Path clientCa) {
        this(certChain, privateKey, clientCa, null);
    }

    /**
     * TLS settings from the optional file flags ({@code --grpc-tls-cert-file}, {@code --grpc-tls-key-file},
     * {@code --grpc-tls-client-ca-file}): empty when none is given.
     *
     * @throws IllegalArgumentException when only some are given or a file is not readable
     */
    public static Optional<ServerTls> fromFiles(String certFile, String keyFile, String clientCaFile) {
        boolean cert = present(certFile);
        boolean key = present(keyFile);
        boolean ca = present(clientCaFile);
        if (!cert && !key && !ca) {
            return Optional.empty();
        }
        if (!cert || !key) {
            throw new IllegalArgumentException("gRPC server TLS needs both a certificate file and a key file"
                    + " (--grpc-tls-cert-file " + (cert ? "given" : "missing") + ", --grpc-tls-key-file " + (key ? "given" : "missing") + ")");
        }
        return Optional.of(new ServerTls(readable(certFile, "--grpc-tls-cert-file"), readable(keyFile, "--grpc-tls-key-file"),
                ca ? readable(clientCaFile, "--grpc-tls-client-ca-file") : null));
    }

    public boolean requiresClientCertificates() {
        return clientCa != null;
    }

    /**
     * Reads the files now, so a bad file fails at start-up with its name; they are read again when they change
     * ({@link CertificateFiles}), so a renewed certificate or CA serves new connections without a restart.
     */
    public ServerCredentials credentials() {
        CertificateFiles files = new CertificateFiles(certChain, privateKey, clientCa, source);
        TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(files.keyManager());
        if (clientCa != null) {
            b.trustManager(files.trustManager(true)).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
        }
        return b.build();
    }

    /** True when a file flag was given (not null, not blank). */
    public static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    /** {@code file} as a path, or an error naming {@code flag} when it is missing or not readable. */
    public static Path readable(String file, String flag) {
        return dev.muster.common.config.Flags.readableFile(flag, file);
    }
}
