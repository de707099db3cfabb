package dev.muster.common.tls;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import okhttp3.CipherSuite;
import okhttp3.ConnectionSpec;

/**
 * Which cipher a TLS connection of Muster's asks for first, chosen by the JVM's JIT. The JDK encrypts AES-GCM fast only
 * with the C2 compiler's intrinsics; with C1 alone ({@code -XX:CompilationMode=quick-only}, the chart's default for a
 * quick start) its AES-GCM runs as plain Java, about 40 MB/s on the machine of docs/benchmarks.md against 200 MB/s for
 * ChaCha20-Poly1305, and the extender's profile in the real loop spent a fifth of its samples in it (the pod watch's
 * decryption). Without C2, Muster's connections put ChaCha20-Poly1305 first: its clients (the API server, which
 * honours a client's first choice when that is not AES-GCM) and its HTTPS server (which picks by its own order). With
 * C2, the JDK's order (AES-GCM first) stays. Every suite the JDK enables stays enabled; only the order changes.
 *
 * <p>Immutable and thread-safe.
 */
public enum CipherOrder {
    /** The JDK's order (AES-GCM first): with C2. */
    JDK,
    /** ChaCha20-Poly1305 first, then the JDK's order: with C1 alone. */
    CHACHA_FIRST;

    /**
     * The system property that sets the order whatever the JIT: {@code jdk} (say, where policy asks for AES-GCM) or
     * {@code chacha-first}.
     */
    public static final String PROPERTY = "muster.tls.cipherOrder";

    /**
     * The order for this JVM: {@link #PROPERTY} when set, else {@link #CHACHA_FIRST} when it runs without C2, else
     * {@link #JDK}.
     *
     * @throws IllegalArgumentException when the property names no order
     */
    public static CipherOrder forThisJvm() {
        return of(System.getProperty(PROPERTY), Jit.WITHOUT_C2);
    }

    /** The JVM's compilers, read once (its options do not change while it runs). */
    private static final class Jit {
        static final boolean WITHOUT_C2 = withoutC2();
    }

    static CipherOrder of(String property, boolean withoutC2) {
        if (property == null || property.isBlank()) {
            return withoutC2 ? CHACHA_FIRST : JDK;
        }
        return switch (property.trim()) {
            case "jdk" -> JDK;
            case "chacha-first" -> CHACHA_FIRST;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + "=" + property + ": expected jdk or chacha-first");
        };
    }

    /** Whether this JVM compiles with C1 alone: {@code -XX:CompilationMode=quick-only}, or tiers stopped below C2's. */
    static boolean withoutC2() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if ("quick-only".equals(vm.getVMOption("CompilationMode").getValue())) {
                return true;
            }
            return Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()) < 4
                    && Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue());
        } catch (RuntimeException e) {
            return false; // not HotSpot, or the options are unknown: keep the JDK's order
        }
    }

    /** What a start's log says of this order. */
    public String describe() {
        return this == JDK ? "TLS in the JDK's cipher order (AES-GCM first)"
                : "TLS asks for ChaCha20-Poly1305 first (" + (System.getProperty(PROPERTY) != null ? "-D" + PROPERTY : "no C2 compiler") + ")";
    }

    /** {@code suites} in this order: with {@link #CHACHA_FIRST}, the ChaCha20-Poly1305 ones moved to the front. */
    public String[] order(String[] suites) {
        if (this == JDK) {
            return suites;
        }
        List<String> first = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String s : suites) {
            (s.contains("CHACHA20") ? first : rest).add(s);
        }
        first.addAll(rest);
        return first.toArray(String[]::new);
    }

    /**
     * Orders the suites {@code socket} enables (a server's own order picks its cipher: the JDK's default). Once per
     * accepted connection, before its handshake: a few dozen names moved, against a handshake's key exchange.
     */
    public void apply(SSLSocket socket) {
        if (this != JDK) {
            socket.setEnabledCipherSuites(order(socket.getEnabledCipherSuites()));
        }
    }

    /**
     * okhttp's modern TLS spec in this order. okhttp sends the suites of its spec in the spec's order (the socket's
     * enabled ones), so the order is the spec's.
     */
    public ConnectionSpec okhttpSpec() {
        ConnectionSpec modern = ConnectionSpec.MODERN_TLS;
        if (this == JDK) {
            return modern;
        }
        List<CipherSuite> suites = modern.cipherSuites();
        String[] ordered = order(suites.stream().map(CipherSuite::javaName).toArray(String[]::new));
        return new ConnectionSpec.Builder(modern).cipherSuites(ordered).build();
    }
}
