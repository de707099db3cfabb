package dev.muster.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.rpc.TestPki;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificate files as Secrets hold them: the key formats issuers write, and reloads while handshakes run. */
class CertificateFilesTest {
    @TempDir
    Path dir;

    @Test
    void aSec1EcKeyAsCertManagerWritesItLoadsAlsoAfterAnEcParametersBlock() throws Exception {
        TestPki pki = new TestPki(dir, "t");
        TestPki.Issued issued = pki.server("extender");
        String sec1 = pem("EC PRIVATE KEY", sec1(issued.key(), true));
        Path keyFile = Files.writeString(dir.resolve("sec1.key"), sec1);
        CertificateFiles files = new CertificateFiles(issued.cert(), keyFile, pki.caFile());
        assertThat(files.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=extender");

        // openssl ecparam -genkey writes the curve's parameters first
        Path withParams = Files.writeString(dir.resolve("params.key"), pem("EC PARAMETERS", new byte[] {0x06, 0x08, 0x2a, (byte) 0x86, 0x48,
                (byte) 0xce, 0x3d, 0x03, 0x01, 0x07}) + sec1);
        assertThat(new CertificateFiles(issued.cert(), withParams, null).certificate()).isEqualTo(files.certificate());
    }

    @Test
    void aSec1KeyThatNamesNoCurveIsRefusedNamingTheFile() throws Exception {
        TestPki pki = new TestPki(dir, "t");
        TestPki.Issued issued = pki.server("extender");
        Path keyFile = Files.writeString(dir.resolve("nocurve.key"), pem("EC PRIVATE KEY", sec1(issued.key(), false)));
        assertThatThrownBy(() -> new CertificateFiles(issued.cert(), keyFile, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(keyFile.toString()).hasMessageContaining("names no curve");
    }

    /**
     * A handshake asks for its alias, then the chain, then the key; the files are replaced and re-read between the
     * first and the others: it still gets one load's chain with that load's key, and the next handshake the new pair.
     */
    @Test
    void aHandshakeStraddlingAReloadGetsTheChainAndTheKeyOfOneLoad() throws Exception {
        TestPki pki = new TestPki(dir, "t");
        TestPki.Issued first = pki.server("first");
        TestPki.Issued second = pki.server("second");
        Path cert = dir.resolve("tls.crt");
        Path key = dir.resolve("tls.key");
        Files.copy(first.cert(), cert);
        Files.copy(first.key(), key);
        AtomicLong clock = new AtomicLong();
        CertificateFiles files = new CertificateFiles(cert, key, pki.caFile(), clock::get);
        X509ExtendedKeyManager keys = files.keyManager();

        String alias = keys.chooseServerAlias("EC", null, null);
        replace(second.cert(), cert);
        replace(second.key(), key);
        clock.addAndGet(2 * CertificateFiles.CHECK_EVERY_NANOS); // the next call re-reads the files
        assertThat(files.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=second");

        X509Certificate[] chain = keys.getCertificateChain(alias);
        PrivateKey oldKey = keys.getPrivateKey(alias);
        assertThat(chain[0].getSubjectX500Principal().getName()).isEqualTo("CN=first");
        assertThat(TestPki.pairs(chain[0], oldKey)).as("the first load's chain with the first load's key").isTrue();

        String next = keys.chooseServerAlias("EC", null, null);
        assertThat(next).isNotEqualTo(alias);
        assertThat(keys.getCertificateChain(next)[0].getSubjectX500Principal().getName()).isEqualTo("CN=second");
        assertThat(TestPki.pairs(keys.getCertificateChain(next)[0], keys.getPrivateKey(next))).isTrue();
        assertThat(keys.getCertificateChain("no-such-alias")).isNull();
    }

    /**
     * A client offers its certificate even when the server's request names another CA: netty's OpenSSL server names
     * the CAs it trusted at its start, so after a rotation it still names the old one while it accepts the new.
     */
    @Test
    void aClientOffersItsCertificateWhateverCaTheServerNames() throws Exception {
        TestPki rotated = new TestPki(dir, "new");
        TestPki.Issued client = rotated.client("muster-controller");
        CertificateFiles files = new CertificateFiles(client.cert(), client.key(), rotated.caFile());
        javax.security.auth.x500.X500Principal oldCa = new javax.security.auth.x500.X500Principal("CN=old-ca");

        assertThat(files.keyManager().chooseEngineClientAlias(new String[] {"EC"}, new java.security.Principal[] {oldCa}, null)).isNotNull();
        assertThat(files.keyManager().chooseClientAlias(new String[] {"EC"}, new java.security.Principal[] {oldCa}, null)).isNotNull();
        assertThat(files.keyManager().getClientAliases("EC", new java.security.Principal[] {oldCa})).hasSize(1);
    }

    /**
     * A Secret read through the API whose CA and certificate change in one step (what a render without lookup writes):
     * the next check presents the new certificate and accepts clients of the new CA at once, still accepts clients of
     * the replaced CA for the grace period (their own copy of the Secret may lag), and refuses them after it.
     */
    @Test
    void aCaChangeFromASecretIsTakenUpAndTheReplacedCaIsTrustedForTheGracePeriodOnly() throws Exception {
        TestPki old = new TestPki(Files.createDirectories(dir.resolve("old")), "old");
        TestPki fresh = new TestPki(Files.createDirectories(dir.resolve("new")), "new");
        TestPki.Issued oldServer = old.server("extender");
        TestPki.Issued newServer = fresh.server("extender");
        X509Certificate[] oldClient = chain(old.client("muster-scheduler").cert());
        X509Certificate[] newClient = chain(fresh.client("muster-scheduler").cert());
        java.util.concurrent.atomic.AtomicReference<TlsSource.Snapshot> secret = new java.util.concurrent.atomic.AtomicReference<>(
                snapshot("1", oldServer, old.caFile()));
        TlsSource source = TlsSource.of("Secret test/extender-tls", secret::get);
        AtomicLong clock = new AtomicLong();
        long grace = 60 * CertificateFiles.CHECK_EVERY_NANOS;
        Path mount = Path.of("/etc/muster/tls");
        CertificateFiles files = new CertificateFiles(mount.resolve("tls.crt"), mount.resolve("tls.key"), mount.resolve("ca.crt"), source, grace,
                clock::get);
        javax.net.ssl.X509ExtendedTrustManager trust = files.trustManager(true);
        trust.checkClientTrusted(oldClient, "EC");
        assertThatThrownBy(() -> trust.checkClientTrusted(newClient, "EC")).isInstanceOf(java.security.cert.CertificateException.class);

        secret.set(snapshot("2", newServer, fresh.caFile()));
        clock.addAndGet(2 * CertificateFiles.CHECK_EVERY_NANOS);
        assertThat(files.certificate().getIssuerX500Principal().getName()).isEqualTo("CN=new-ca");
        trust.checkClientTrusted(newClient, "EC");
        trust.checkClientTrusted(oldClient, "EC"); // within the grace period

        clock.addAndGet(grace);
        files.certificate(); // the next check drops the replaced CA
        assertThatThrownBy(() -> trust.checkClientTrusted(oldClient, "EC")).isInstanceOf(java.security.cert.CertificateException.class);
        trust.checkClientTrusted(newClient, "EC");
    }

    @Test
    void aSecretWithoutAKeyTheFilesNameIsRefusedNamingTheSecretAndTheKey() throws Exception {
        TestPki pki = new TestPki(dir, "t");
        TestPki.Issued server = pki.server("extender");
        TlsSource.Snapshot noCa = new TlsSource.Snapshot("1", java.util.Map.of("tls.crt", Files.readAllBytes(server.cert()),
                "tls.key", Files.readAllBytes(server.key())));
        TlsSource source = TlsSource.of("Secret test/extender-tls", () -> noCa);
        Path mount = Path.of("/etc/muster/tls");
        assertThatThrownBy(() -> new CertificateFiles(mount.resolve("tls.crt"), mount.resolve("tls.key"), mount.resolve("ca.crt"), source))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Secret test/extender-tls has no key ca.crt");
    }

    private static TlsSource.Snapshot snapshot(String version, TestPki.Issued issued, Path ca) throws Exception {
        return new TlsSource.Snapshot(version, java.util.Map.of("tls.crt", Files.readAllBytes(issued.cert()), "tls.key", Files.readAllBytes(issued.key()),
                "ca.crt", Files.readAllBytes(ca)));
    }

    private static X509Certificate[] chain(Path cert) throws Exception {
        return PemTls.certificates(cert).toArray(X509Certificate[]::new);
    }

    private static void replace(Path from, Path to) throws Exception {
        Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(to, FileTime.from(Instant.now().plusSeconds(5))); // a new stamp even within one tick
    }


    /** The PKCS#8 EC key in {@code pkcs8Pem} as a SEC1 ECPrivateKey, with or without its named curve. */
    private static byte[] sec1(Path pkcs8Pem, boolean withCurve) throws Exception {
        String pem = Files.readString(pkcs8Pem);
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        ECPrivateKey k = (ECPrivateKey) KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
        BigInteger s = k.getS();
        ASN1ObjectIdentifier curve = ASN1ObjectIdentifier.getInstance(PrivateKeyInfo.getInstance(der).getPrivateKeyAlgorithm().getParameters());
        return (withCurve ? new org.bouncycastle.asn1.sec.ECPrivateKey(256, s, curve) : new org.bouncycastle.asn1.sec.ECPrivateKey(256, s)).getEncoded();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
