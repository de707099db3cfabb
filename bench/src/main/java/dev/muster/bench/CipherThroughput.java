package dev.muster.bench;

import java.util.Locale;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * How fast this JVM seals TLS records with each cipher TLS 1.3 offers (16 KB records, as a busy connection sends):
 * run it with the extender's JIT ({@code -XX:CompilationMode=quick-only}, the chart's default) and with the default
 * tiered JIT to see why {@link dev.muster.common.tls.CipherOrder} asks for ChaCha20-Poly1305 first without C2.
 *
 * <pre>
 * mvn -q -pl bench verify -DskipTests -Pbench -Dbench.main=dev.muster.bench.CipherThroughput -Dbench.jvm=-XX:CompilationMode=quick-only
 * </pre>
 */
public final class CipherThroughput {
    private static final int RECORD = 16 * 1024;
    private static final int RECORDS = 6_000; // ~100 MB a round

    private CipherThroughput() {}

    public static void main(String[] args) throws Exception {
        byte[] in = new byte[RECORD];
        byte[] out = new byte[RECORD + 16];
        for (int round = 0; round < 3; round++) { // the first rounds compile; the last is reported
            for (String cipher : new String[] {"AES-256-GCM", "AES-128-GCM", "ChaCha20-Poly1305"}) {
                long t = System.nanoTime();
                long bytes = 0;
                for (int i = 0; i < RECORDS; i++) {
                    byte[] nonce = new byte[12];
                    nonce[0] = (byte) i;
                    nonce[1] = (byte) (i >> 8);
                    nonce[2] = (byte) round;
                    Cipher c;
                    if (cipher.startsWith("AES")) {
                        c = Cipher.getInstance("AES/GCM/NoPadding");
                        c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[cipher.contains("256") ? 32 : 16], "AES"), new GCMParameterSpec(128, nonce));
                    } else {
                        c = Cipher.getInstance("ChaCha20-Poly1305");
                        c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[32], "ChaCha20"), new IvParameterSpec(nonce));
                    }
                    bytes += c.doFinal(in, 0, in.length, out, 0);
                }
                if (round == 2) {
                    System.out.printf(Locale.ROOT, "%-18s %6.0f MB/s%n", cipher, bytes / 1e6 / ((System.nanoTime() - t) / 1e9));
                }
            }
        }
    }
}
