package dev.muster.common.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LauncherTest {
    @TempDir
    Path jvms;

    @Test
    void itIsJava8BytecodeSoThatAnOldJavaCanLoadItAndExplain() throws IOException {
        try (InputStream in = Launcher.class.getResourceAsStream("Launcher.class"); DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).isEqualTo(0xCAFEBABE);
            data.readUnsignedShort(); // minor
            assertThat(data.readUnsignedShort()).as("class file major version (52 = Java 8)").isEqualTo(52);
        }
    }

    @ParameterizedTest(name = "java.specification.version {0} is feature {1}")
    @CsvSource({"1.8, 8", "11, 11", "17, 17", "21, 21", "25, 25", "21.0.2, 21", "'', 0"})
    void featureVersions(String specification, int feature) {
        assertThat(Launcher.feature(specification)).isEqualTo(feature);
    }

    @Test
    void onJava17ItSaysWhichJavaThisIsAndWhichToUse() {
        String line = Launcher.problem("17", "/usr/lib/jvm/java-17-openjdk-amd64", "server/target/muster-server.jar",
                List.of("/usr/lib/jvm/temurin-25-jdk-amd64"), List.of("--kubeconfig", "/home/me/.kube/config", "--lease-name", "a b"));

        assertThat(line).isEqualTo("muster needs Java 21 or newer; this is Java 17 at /usr/lib/jvm/java-17-openjdk-amd64; run it with "
                + "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar server/target/muster-server.jar --kubeconfig /home/me/.kube/config --lease-name 'a b'");
    }

    @Test
    void withNoNewerJavaBesideItSaysSo() {
        assertThat(Launcher.problem("1.8", "/opt/jdk8", "muster-controller.jar", List.of(), List.of()))
                .startsWith("muster needs Java 21 or newer; this is Java 1.8 at /opt/jdk8; run it with the java of a Java 21+ installation "
                        + "(none is beside this one)")
                .endsWith("-jar muster-controller.jar");
    }

    @Test
    void java21AndNewerPass() {
        assertThat(Launcher.problem("21", "/jdk", "x.jar", List.of(), List.of())).isNull();
        assertThat(Launcher.problem("25", "/jdk", "x.jar", List.of(), List.of())).isNull();
    }

    @Test
    void newerJavasBesideThisOneAreFoundNewestFirst() throws IOException {
        Path java17 = jdk("java-17", "17.0.15");
        jdk("temurin-21", "21.0.5");
        jdk("temurin-25", "25.0.1");
        Files.createDirectories(jvms.resolve("not-a-jdk"));

        assertThat(Launcher.newerJavas(java17.toString()))
                .containsExactly(jvms.resolve("temurin-25").toString(), jvms.resolve("temurin-21").toString());
    }

    @Test
    void theJarIsNamedRelativeToTheWorkingDirectoryWhenInsideIt() throws Exception {
        Path inside = Path.of("target", "muster-server.jar").toAbsolutePath();

        assertThat(Launcher.jarOf(URI.create("jar:" + inside.toUri() + "!/META-INF/MANIFEST.MF").toURL()))
                .isEqualTo(Path.of("target", "muster-server.jar").toString());
        assertThat(Launcher.jarOf(URI.create("jar:file:/opt/muster/muster-server.jar!/META-INF/MANIFEST.MF").toURL()))
                .isEqualTo("/opt/muster/muster-server.jar");
    }

    static final AtomicReference<List<String>> RECEIVED = new AtomicReference<>();

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("fail")) {
            throw new IllegalStateException("from the real main");
        }
        RECEIVED.set(List.of(args));
    }

    @Test
    void onANewJavaTheRealMainRunsWithTheArgumentsAndItsExceptionsComeOutUnchanged() throws Exception {
        Launcher.run(LauncherTest.class.getName(), new String[] {"--leader-elect=false", "--kubeconfig", "k"});
        assertThat(RECEIVED.get()).containsExactly("--leader-elect=false", "--kubeconfig", "k");

        assertThatThrownBy(() -> Launcher.run(LauncherTest.class.getName(), new String[] {"fail"}))
                .isInstanceOf(IllegalStateException.class).hasMessage("from the real main");
    }

    private Path jdk(String name, String version) throws IOException {
        Path home = Files.createDirectories(jvms.resolve(name));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        java.toFile().setExecutable(true);
        return home;
    }
}
