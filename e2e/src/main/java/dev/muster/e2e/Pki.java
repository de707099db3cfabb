package dev.muster.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Key material for a loopback API server, made with the JDK alone (keytool for the certificate, whose
 * subject alternative names kube-apiserver's clients check), written as PEM files Go reads.
 */
public final class Pki {
    private Pki() {}

    private static final String PASS = "muster-e2e";

    /** A self-signed serving certificate for 127.0.0.1 / localhost (it is also the CA clients trust). */
    public record ServingCert(Path certFile, Path keyFile, Path keyStore) {
        /** TLS for a loopback HTTPS server of our own presenting this certificate (e.g. a webhook the API server calls). */
        public SSLContext serverContext() throws IOException, GeneralSecurityException {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                ks.load(in, PASS.toCharArray());
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PASS.toCharArray());
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(kmf.getKeyManagers(), null, null);
            return tls;
        }
    }

    public static ServingCert servingCert(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
        Path store = dir.resolve("serving.p12");
        Files.deleteIfExists(store);
        String pass = PASS;
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "serving", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "7", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-ext", "BC:c=ca:true", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", pass, "-keypass", pass))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("keytool failed: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, pass.toCharArray());
        }
        PrivateKey key = (PrivateKey) ks.getKey("serving", pass.toCharArray());
        Certificate cert = ks.getCertificate("serving");
        ServingCert files = new ServingCert(dir.resolve("serving.crt"), dir.resolve("serving.key"), store);
        Files.writeString(files.certFile(), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(files.keyFile(), pem("PRIVATE KEY", key.getEncoded()));
        return files;
    }

    /** The service-account token signing pair: {@code sa.pub} (PUBLIC KEY) and {@code sa.key} (PRIVATE KEY). */
    public static void serviceAccountKeys(Path pub, Path priv) throws IOException, GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair kp = g.generateKeyPair();
        Files.writeString(pub, pem("PUBLIC KEY", kp.getPublic().getEncoded()));
        Files.writeString(priv, pem("PRIVATE KEY", kp.getPrivate().getEncoded()));
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
