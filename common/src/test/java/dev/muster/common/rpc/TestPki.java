package dev.muster.common.rpc;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for tests (BouncyCastle, already on the classpath through
 * client-java): issues server and client certificates and writes them as PEM files (certificates, PKCS#8
 * keys), the format the TLS flags take.
 */
public final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

    private final Path dir;
    private final String name;
    private final KeyPair caKeys;
    private final X509Certificate caCert;

    /** A PEM certificate chain and its key, on disk. */
    public record Issued(Path cert, Path key) {}

    public TestPki(Path dir, String name) throws GeneralSecurityException, IOException {
        this.dir = dir;
        this.name = name;
        this.caKeys = keyPair();
        this.caCert = sign(caName(), caKeys, caKeys.getPrivate(), caName(), true, new KeyPurposeId[0], null);
        write(dir.resolve(name + "-ca.pem"), pem("CERTIFICATE", caCert.getEncoded()));
    }

    private X500Name caName() {
        return new X500Name("CN=" + name + "-ca");
    }

    public Path caFile() {
        return dir.resolve(name + "-ca.pem");
    }

    /** A server certificate for {@code localhost} and {@code 127.0.0.1}. */
    public Issued server(String cn) throws GeneralSecurityException, IOException {
        return issue(cn, KeyPurposeId.id_kp_serverAuth,
                new GeneralNames(new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
    }

    public Issued client(String cn) throws GeneralSecurityException, IOException {
        return issue(cn, KeyPurposeId.id_kp_clientAuth, null);
    }

    /** A certificate for {@code localhost} usable both to serve and as a client (an extender replica forwarding). */
    public Issued serverAndClient(String cn) throws GeneralSecurityException, IOException {
        return issue(cn, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
                new GeneralNames(new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
    }

    private Issued issue(String cn, KeyPurposeId purpose, GeneralNames sans) throws GeneralSecurityException, IOException {
        return issue(cn, new KeyPurposeId[] {purpose}, sans);
    }

    private Issued issue(String cn, KeyPurposeId[] purpose, GeneralNames sans) throws GeneralSecurityException, IOException {
        KeyPair keys = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + cn), keys, caKeys.getPrivate(), caName(), false, purpose, sans);
        Path certFile = dir.resolve(name + "-" + cn + ".pem");
        Path keyFile = dir.resolve(name + "-" + cn + "-key.pem");
        write(certFile, pem("CERTIFICATE", cert.getEncoded()));
        write(keyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        return new Issued(certFile, keyFile);
    }

    /** Whether {@code key} is the private half of {@code cert}'s key: signs a probe with it and verifies with the certificate. */
    public static boolean pairs(X509Certificate cert, PrivateKey key) throws GeneralSecurityException {
        byte[] probe = "probe".getBytes(StandardCharsets.US_ASCII);
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(key);
        s.update(probe);
        byte[] sig = s.sign();
        Signature v = Signature.getInstance("SHA256withECDSA");
        v.initVerify(cert.getPublicKey());
        v.update(probe);
        return v.verify(sig);
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, PrivateKey issuerKey, X500Name issuer, boolean ca, KeyPurposeId[] purpose,
            GeneralNames sans) throws GeneralSecurityException, IOException {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, subjectKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (ca) {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
        }
        if (sans != null) {
            b.addExtension(Extension.subjectAlternativeName, false, sans);
        }
        try {
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        return g.generateKeyPair();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static void write(Path file, String content) throws IOException {
        Files.writeString(file, content);
    }
}
