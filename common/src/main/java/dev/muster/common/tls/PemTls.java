package dev.muster.common.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509ExtendedTrustManager;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads the PEM files Kubernetes Secrets hold ({@code tls.crt}, {@code tls.key}, {@code ca.crt}) for
 * {@link CertificateFiles}, and makes a client context that trusts a CA file (tests, tools). Keys may be PKCS#8 ({@code BEGIN PRIVATE KEY}, RSA or EC) or PKCS#1 RSA
 * ({@code BEGIN RSA PRIVATE KEY}, cert-manager's default). Errors name the file and the problem.
 */
public final class PemTls {
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private PemTls() {}

    /** A client context trusting {@code caFile}. */
    public static SSLContext clientContext(Path caFile) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new javax.net.ssl.TrustManager[] {trustManager(caFile)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("TLS trust from " + caFile + ": " + e.getMessage(), e);
        }
    }

    /** Trusts the certificates in {@code caFile} (and only those). */
    static X509ExtendedTrustManager trustManager(Path caFile) throws GeneralSecurityException {
        try {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            int i = 0;
            for (Certificate c : certificates(caFile)) {
                ts.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            return (X509ExtendedTrustManager) tmf.getTrustManagers()[0];
        } catch (IOException e) {
            throw new IllegalArgumentException("CA file " + caFile + ": " + e.getMessage(), e);
        }
    }

    static List<X509Certificate> certificates(Path file) throws GeneralSecurityException, IOException {
        List<X509Certificate> certs = new ArrayList<>();
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)))) {
            certs.add((X509Certificate) c);
        }
        if (certs.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no PEM certificate");
        }
        return certs;
    }

    static PrivateKey privateKey(Path file) throws GeneralSecurityException, IOException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        Matcher m = BLOCK.matcher(pem);
        while (m.find()) {
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            switch (m.group(1)) {
                case "PRIVATE KEY" -> {
                    for (String alg : new String[] {"RSA", "EC", "Ed25519"}) {
                        try {
                            return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
                        } catch (GeneralSecurityException tryNext) {
                            // not this algorithm
                        }
                    }
                    throw new IllegalArgumentException(file + ": PKCS#8 key of an unsupported algorithm");
                }
                case "RSA PRIVATE KEY" -> {
                    return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs1ToPkcs8(der)));
                }
                default -> {
                    // e.g. a certificate in the same file: keep looking
                }
            }
        }
        throw new IllegalArgumentException(file + " holds no PEM private key (expected BEGIN PRIVATE KEY or BEGIN RSA PRIVATE KEY)");
    }

    /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo (version 0, rsaEncryption, NULL). */
    static byte[] pkcs1ToPkcs8(byte[] pkcs1) {
        byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octets = der((byte) 0x04, pkcs1);
        byte[] body = new byte[version.length + algorithm.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algorithm, 0, body, version.length, algorithm.length);
        System.arraycopy(octets, 0, body, version.length + algorithm.length, octets.length);
        return der((byte) 0x30, body);
    }

    private static byte[] der(byte tag, byte[] content) {
        int len = content.length;
        byte[] header;
        if (len < 0x80) {
            header = new byte[] {tag, (byte) len};
        } else if (len < 0x100) {
            header = new byte[] {tag, (byte) 0x81, (byte) len};
        } else if (len < 0x10000) {
            header = new byte[] {tag, (byte) 0x82, (byte) (len >> 8), (byte) len};
        } else {
            header = new byte[] {tag, (byte) 0x83, (byte) (len >> 16), (byte) (len >> 8), (byte) len};
        }
        byte[] out = new byte[header.length + len];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(content, 0, out, header.length, len);
        return out;
    }
}
