package dev.muster.e2e;

import io.kubernetes.client.openapi.models.V1Secret;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * What cert-manager does when the CA of its CA issuer changes and the certificates are re-issued: a new CA (ECDSA
 * P-256), and for each of the chart's Secrets a new key and a certificate of the new CA with the same subject, DNS
 * names and extended key usages as the one it replaces, written as cert-manager writes them ({@code tls.crt},
 * {@code tls.key} as SEC1 {@code EC PRIVATE KEY}, {@code ca.crt} = the new CA alone), one Secret update each.
 */
final class TestIssuer {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final E2eCluster c;
    private final KeyPair caKeys;
    private final X509Certificate ca;
    private final X500Name caName;

    /** A new CA named {@code name}. */
    TestIssuer(E2eCluster c, String name) throws Exception {
        this.c = c;
        this.caKeys = keyPair();
        this.caName = new X500Name("CN=" + name);
        this.ca = sign(caName, caKeys, true, null, null);
    }

    /** The new CA, as {@code ca.crt} holds it. */
    String caPem() throws IOException {
        return pem(ca);
    }

    /** Re-issues the Secrets in {@code namespace}, in this order, each from the new CA. */
    void reissue(String namespace, List<String> secrets) throws Exception {
        for (String name : secrets) {
            V1Secret s = Kube.call("read " + name, () -> c.admin.core().readNamespacedSecret(name, namespace).execute());
            X509Certificate old = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(s.getData().get("tls.crt")));
            KeyPair keys = keyPair();
            X509Certificate leaf = sign(new X500Name(old.getSubjectX500Principal().getName()), keys, false, sans(old), usages(old));
            Map<String, byte[]> data = new HashMap<>(s.getData());
            data.put("tls.crt", pem(leaf).getBytes(StandardCharsets.US_ASCII));
            data.put("tls.key", sec1(keys).getBytes(StandardCharsets.US_ASCII));
            data.put("ca.crt", caPem().getBytes(StandardCharsets.US_ASCII));
            s.setData(data);
            Kube.call("re-issue " + name, () -> c.admin.core().replaceNamespacedSecret(name, namespace, s).execute());
        }
    }

    private static GeneralNames sans(X509Certificate old) throws GeneralSecurityException {
        Collection<List<?>> names = old.getSubjectAlternativeNames();
        if (names == null) {
            return null;
        }
        List<GeneralName> out = new ArrayList<>();
        for (List<?> n : names) {
            out.add(new GeneralName((Integer) n.get(0), (String) n.get(1)));
        }
        return new GeneralNames(out.toArray(GeneralName[]::new));
    }

    private static KeyPurposeId[] usages(X509Certificate old) throws GeneralSecurityException {
        List<String> eku = old.getExtendedKeyUsage();
        List<KeyPurposeId> out = new ArrayList<>();
        for (String oid : eku == null ? List.<String>of() : eku) {
            out.add(KeyPurposeId.getInstance(new org.bouncycastle.asn1.ASN1ObjectIdentifier(oid)));
        }
        return out.toArray(KeyPurposeId[]::new);
    }

    private X509Certificate sign(X500Name subject, KeyPair subjectKeys, boolean isCa, GeneralNames sans, KeyPurposeId[] usages) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caName, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(90))), subject, subjectKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        if (isCa) {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
        } else {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages));
        }
        if (sans != null) {
            b.addExtension(Extension.subjectAlternativeName, false, sans);
        }
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        return g.generateKeyPair();
    }

    /**
     * The key as cert-manager (Go's x509.MarshalECPrivateKey) writes it: SEC1 {@code EC PRIVATE KEY} naming its curve
     * and holding the public key.
     */
    private static String sec1(KeyPair keys) throws IOException {
        var pkcs8 = org.bouncycastle.asn1.pkcs.PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded());
        var spki = org.bouncycastle.asn1.x509.SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded());
        var ec = new org.bouncycastle.asn1.sec.ECPrivateKey(256, ((java.security.interfaces.ECPrivateKey) keys.getPrivate()).getS(),
                spki.getPublicKeyData(), pkcs8.getPrivateKeyAlgorithm().getParameters());
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(new org.bouncycastle.util.io.pem.PemObject("EC PRIVATE KEY", ec.getEncoded()));
        }
        return out.toString();
    }

    /** A certificate in PEM. */
    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
