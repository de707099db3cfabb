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
 * {@link CertificateFiles}, and makes a client context that trusts a CA file (tests, tools). Keys may be PKCS#8
 * ({@code BEGIN PRIVATE KEY}, RSA, EC or Ed25519), PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}, cert-manager's default)
 * or SEC1 EC ({@code BEGIN EC PRIVATE KEY}, what cert-manager and OpenSSL write for ECDSA keys; an
 * {@code EC PARAMETERS} block before it is skipped). Errors name the file and the problem.
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
            return trustManager(certificates(caFile));
        } catch (IOException e) {
            throw new IllegalArgumentException("CA file " + caFile + ": " + e.getMessage(), e);
        }
    }

    /** Trusts {@code cas} (and only those). */
    static X509ExtendedTrustManager trustManager(List<X509Certificate> cas) throws GeneralSecurityException {
        try {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            int i = 0;
            for (Certificate c : cas) {
                ts.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            return (X509ExtendedTrustManager) tmf.getTrustManagers()[0];
        } catch (IOException e) {
            throw new IllegalArgumentException("CA certificates: " + e.getMessage(), e);
        }
    }

    static List<X509Certificate> certificates(Path file) throws GeneralSecurityException, IOException {
        return certificates(file.toString(), Files.readAllBytes(file));
    }

    /** The certificates in {@code pem}; {@code source} names it in errors (a file, or a Secret's key). */
    static List<X509Certificate> certificates(String source, byte[] pem) throws GeneralSecurityException {
        List<X509Certificate> certs = new ArrayList<>();
        try {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                certs.add((X509Certificate) c);
            }
        } catch (java.security.cert.CertificateException e) {
            throw new IllegalArgumentException(source + " holds no valid PEM certificate: " + e.getMessage(), e);
        }
        if (certs.isEmpty()) {
            throw new IllegalArgumentException(source + " holds no PEM certificate");
        }
        return certs;
    }

    static PrivateKey privateKey(Path file) throws GeneralSecurityException, IOException {
        return privateKey(file.toString(), Files.readAllBytes(file));
    }

    /** The private key in {@code pemBytes}; {@code file} names it in errors (a file, or a Secret's key). */
    static PrivateKey privateKey(String file, byte[] pemBytes) throws GeneralSecurityException {
        String pem = new String(pemBytes, StandardCharsets.US_ASCII);
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
                case "EC PRIVATE KEY" -> {
                    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(sec1ToPkcs8(file, der)));
                }
                default -> {
                    // e.g. a certificate in the same file: keep looking
                }
            }
        }
        throw new IllegalArgumentException(file + " holds no PEM private key (expected BEGIN PRIVATE KEY, BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)");
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

    /**
     * Wraps a SEC1 ECPrivateKey (RFC 5915: version 1, the private key, [0] the named curve, [1] the public key) in a
     * PKCS#8 PrivateKeyInfo (version 0, id-ecPublicKey with that curve). The curve must be named in the key: a key
     * without it cannot be read (OpenSSL, Go and cert-manager always name it).
     */
    static byte[] sec1ToPkcs8(Object file, byte[] sec1) {
        byte[] curve = null;
        try {
            Der outer = Der.at(sec1, 0);
            if (outer.tag != 0x30) {
                throw new IllegalArgumentException("not a SEQUENCE");
            }
            int at = outer.contentStart;
            Der version = Der.at(sec1, at);
            Der key = Der.at(sec1, version.end);
            if (version.tag != 0x02 || key.tag != 0x04) {
                throw new IllegalArgumentException("expected version and private key");
            }
            for (int next = key.end; next < outer.end; ) {
                Der field = Der.at(sec1, next);
                if (field.tag == (byte) 0xa0) {
                    Der oid = Der.at(sec1, field.contentStart);
                    if (oid.tag == 0x06) {
                        curve = java.util.Arrays.copyOfRange(sec1, field.contentStart, oid.end);
                    }
                }
                next = field.end;
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(file + ": EC PRIVATE KEY is not a valid SEC1 key (" + e.getMessage() + ")", e);
        }
        if (curve == null) {
            throw new IllegalArgumentException(file + ": EC PRIVATE KEY names no curve; write it with its curve (openssl ec -param_enc named_curve)"
                    + " or as PKCS#8 (openssl pkcs8 -topk8 -nocrypt)");
        }
        byte[] ecPublicKey = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
        byte[] algorithm = new byte[ecPublicKey.length + curve.length];
        System.arraycopy(ecPublicKey, 0, algorithm, 0, ecPublicKey.length);
        System.arraycopy(curve, 0, algorithm, ecPublicKey.length, curve.length);
        byte[] version = {0x02, 0x01, 0x00};
        byte[] algorithmId = der((byte) 0x30, algorithm);
        byte[] octets = der((byte) 0x04, sec1);
        byte[] body = new byte[version.length + algorithmId.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algorithmId, 0, body, version.length, algorithmId.length);
        System.arraycopy(octets, 0, body, version.length + algorithmId.length, octets.length);
        return der((byte) 0x30, body);
    }

    /** One DER element's tag and where its content starts and it ends (lengths of up to four bytes). */
    private record Der(byte tag, int contentStart, int end) {
        static Der at(byte[] b, int at) {
            byte tag = b[at];
            int len = b[at + 1] & 0xff;
            int start = at + 2;
            if (len >= 0x80) {
                int n = len & 0x7f;
                if (n == 0 || n > 3) {
                    throw new IllegalArgumentException("unsupported DER length at byte " + at);
                }
                len = 0;
                for (int i = 0; i < n; i++) {
                    len = (len << 8) | (b[start + i] & 0xff);
                }
                start += n;
            }
            if (start + len > b.length) {
                throw new IllegalArgumentException("DER element at byte " + at + " runs past the end");
            }
            return new Der(tag, start, start + len);
        }
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
