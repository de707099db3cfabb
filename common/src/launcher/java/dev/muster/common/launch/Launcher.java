package dev.muster.common.launch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Manifest;

/**
 * The {@code Main-Class} of Muster's jars. Compiled for Java 8 (a separate compiler execution in common's pom, from
 * {@code src/launcher/java}) so that any JVM can load it: on Java 21 or newer it runs the jar's real main class, named
 * by the manifest entry {@value #MAIN_ENTRY}; on an older Java it prints one line saying which Java this is, where,
 * and how to run the jar instead, and exits {@value #EXIT_OLD_JAVA} (without it, the JVM refuses the real main class
 * with an {@code UnsupportedClassVersionError} stack trace).
 *
 * <p>Uses nothing newer than Java 8. Stateless.
 */
public final class Launcher {
    /** The manifest entry naming the class to run. */
    public static final String MAIN_ENTRY = "Muster-Main-Class";
    static final int REQUIRED = 21;
    static final int EXIT_OLD_JAVA = 2;

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        URL manifest = ownManifest();
        String problem = problem(System.getProperty("java.specification.version"), System.getProperty("java.home"),
                manifest == null ? "muster.jar" : jarOf(manifest), newerJavas(System.getProperty("java.home")), java.util.Arrays.asList(args));
        if (problem != null) {
            System.err.println(problem);
            System.exit(EXIT_OLD_JAVA);
            return;
        }
        if (manifest == null) {
            System.err.println("muster: no manifest names " + Launcher.class.getName() + " as Main-Class with a " + MAIN_ENTRY);
            System.exit(EXIT_OLD_JAVA);
            return;
        }
        run(read(manifest).getMainAttributes().getValue(MAIN_ENTRY), args);
    }

    /**
     * The line to print when {@code specificationVersion} ({@code java.specification.version}: "1.8", "17", "21")
     * is older than {@value #REQUIRED}; null when this Java will do.
     *
     * @param candidates Java homes of version {@value #REQUIRED}+ found beside this one (may be empty)
     * @param args the arguments the jar was started with: the suggested command repeats them
     */
    static String problem(String specificationVersion, String javaHome, String jar, List<String> candidates, List<String> args) {
        int feature = feature(specificationVersion);
        if (feature >= REQUIRED) {
            return null;
        }
        String start = "muster needs Java " + REQUIRED + " or newer; this is Java " + specificationVersion + " at " + javaHome + "; run it with ";
        if (candidates.isEmpty()) {
            return start + "the java of a Java " + REQUIRED + "+ installation (none is beside this one): JAVA_" + REQUIRED + "_HOME"
                    + File.separator + "bin" + File.separator + "java -jar " + jar + shellWords(args);
        }
        return start + candidates.get(0) + File.separator + "bin" + File.separator + "java -jar " + jar + shellWords(args);
    }

    /** The arguments as a shell would need them typed, each after a space: plain words bare, others in single quotes. */
    static String shellWords(List<String> args) {
        StringBuilder out = new StringBuilder();
        for (String a : args) {
            out.append(' ');
            if (!a.isEmpty() && a.matches("[A-Za-z0-9_./:=,@%+-]+")) {
                out.append(a);
            } else {
                out.append('\'').append(a.replace("'", "'\\''")).append('\'');
            }
        }
        return out.toString();
    }

    /** "1.8" → 8, "17" → 17, "21.0.2" → 21; 0 when unreadable. */
    static int feature(String specificationVersion) {
        if (specificationVersion == null) {
            return 0;
        }
        String v = specificationVersion.startsWith("1.") ? specificationVersion.substring(2) : specificationVersion;
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(v.substring(0, end));
    }

    /** Runs {@code mainClass}'s {@code main(String[])}; what it throws comes out unchanged. */
    static void run(String mainClass, String[] args) throws Exception {
        Method main = Class.forName(mainClass).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    /** Java homes of version {@value #REQUIRED}+ next to {@code javaHome} (e.g. the others in /usr/lib/jvm), newest first. */
    static List<String> newerJavas(String javaHome) {
        File parent = javaHome == null ? null : new File(javaHome).getAbsoluteFile().getParentFile();
        File[] homes = parent == null ? null : parent.listFiles();
        List<String> found = new ArrayList<String>();
        for (int feature = 99; feature >= REQUIRED && homes != null; feature--) {
            for (File home : homes) {
                if (releaseFeature(new File(home, "release").toPath()) == feature && new File(home, "bin" + File.separator + "java").canExecute()) {
                    found.add(home.getPath());
                }
            }
        }
        return found;
    }

    /** The feature version in a JDK's {@code release} file ({@code JAVA_VERSION="25.0.1"}); 0 when absent. */
    static int releaseFeature(Path release) {
        try {
            for (String line : Files.readAllLines(release, StandardCharsets.UTF_8)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    return feature(line.substring("JAVA_VERSION=".length()).replace("\"", "").trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    /** The manifest of the jar being run: the one naming this class as Main-Class, with a {@value #MAIN_ENTRY}. */
    private static URL ownManifest() throws IOException {
        Enumeration<URL> manifests = Launcher.class.getClassLoader().getResources("META-INF/MANIFEST.MF");
        while (manifests.hasMoreElements()) {
            URL url = manifests.nextElement();
            Manifest m = read(url);
            if (Launcher.class.getName().equals(m.getMainAttributes().getValue("Main-Class"))
                    && m.getMainAttributes().getValue(MAIN_ENTRY) != null) {
                return url;
            }
        }
        return null;
    }

    private static Manifest read(URL url) throws IOException {
        InputStream in = url.openStream();
        try {
            return new Manifest(in);
        } finally {
            in.close();
        }
    }

    /** The jar {@code manifest} is in, as the user would type it (relative to the working directory when inside it). */
    static String jarOf(URL manifest) {
        String s = manifest.toString();
        int bang = s.indexOf("!/");
        if (!s.startsWith("jar:file:") || bang < 0) {
            return "muster.jar";
        }
        try {
            Path jar = Paths.get(new URI(s.substring("jar:".length(), bang)));
            Path here = Paths.get("").toAbsolutePath();
            return jar.startsWith(here) ? here.relativize(jar).toString() : jar.toString();
        } catch (URISyntaxException | RuntimeException e) {
            return "muster.jar";
        }
    }
}
