package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.muster.common.config.ProcessStart;
import dev.muster.common.kube.KubeClients;
import dev.muster.common.testing.ConsoleRun;
import dev.muster.common.testing.Kubeconfigs;
import dev.muster.controller.ControllerConfig;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.QueuesGrpc;
import dev.muster.server.ServerConfig;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Every command the README and the docs show stays true: each one that needs no cluster is run (the demo's quick
 * commands, the jars' starts up to the point where they would reach a cluster) or has its arguments checked against
 * what they name (Maven modules, profiles, test and benchmark classes, the demo's scenarios, the chart's values, the
 * Dockerfiles, the fixture files, the gRPC methods). The full demo runs for minutes, so a {@code demo} command is
 * checked by reading its arguments and scenario as the demo would, not by playing it. A command of a kind this test
 * does not know fails it, so a new one gets a check when it is written.
 */
class DocCommandsTest {
    private static final Path ROOT = DocCommands.ROOT;
    private static final List<String> DOCS = DocCommands.DOCS;
    private static final String VERSION = "0.1.0-SNAPSHOT";
    /** The HTTP paths Muster's extender serves (verbs on its HTTP port, health and metrics on both ports). */
    private static final Set<String> SERVED_PATHS = Set.of("/filter", "/prioritize", "/bind", "/preempt", "/healthz", "/readyz", "/metrics");
    /** Environment variables the docs may set: the folder of control-plane binaries. */
    private static final Set<String> KNOWN_VARIABLES = Set.of("MUSTER_K8S_BINARIES");
    /** The demo's quick commands run once even when several docs show them. */
    private static final Set<List<String>> RUN = new HashSet<>();

    @TempDir
    static Path home;

    @TestFactory
    Stream<DynamicTest> everyCommandTheDocsShowWorks() throws IOException {
        List<DocCommands.Command> commands = new ArrayList<>();
        for (String doc : DOCS) {
            commands.addAll(DocCommands.of(ROOT.resolve(doc)));
        }
        assertThat(commands).as("commands found in %s", DOCS).hasSizeGreaterThan(20);
        return commands.stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> check(c)));
    }

    /**
     * The README gets a reader going with two commands and no cluster: the demo and every test. Installing on a
     * cluster builds the jars first; no other Maven command belongs in the README (the rest is in docs/).
     */
    @org.junit.jupiter.api.Test
    void theReadmeShowsTheTwoSetUpCommandsAndTheInstallsBuild() throws IOException {
        List<String> maven = DocCommands.of(ROOT.resolve("README.md")).stream().filter(c -> c.first().equals("mvn"))
                .map(c -> String.join(" ", c.words())).toList();
        assertThat(maven).containsExactly("mvn -q -pl demo -am verify -DskipTests -Pdemo",
                "mvn -B -pl server,controller -am package -DskipTests", "mvn -B verify");
    }

    private void check(DocCommands.Command c) throws Exception {
        List<String> w = new ArrayList<>(c.words());
        while (!w.isEmpty() && w.getFirst().matches("[A-Z_][A-Z0-9_]*=.*")) {
            assertThat(KNOWN_VARIABLES).as("%s: sets %s", c, w.getFirst()).contains(w.getFirst().substring(0, w.getFirst().indexOf('=')));
            w.removeFirst();
        }
        switch (w.getFirst()) {
            case "mvn" -> maven(c, w.subList(1, w.size()));
            case "java" -> javaJar(c, w.subList(1, w.size()));
            case "docker" -> docker(c, w.subList(1, w.size()));
            case "kind", "minikube" -> loadImages(c, w);
            case "helm" -> helm(c, w.subList(1, w.size()));
            case "kubectl" -> kubectl(c, w.subList(1, w.size()));
            case "curl" -> curl(c, w.subList(1, w.size()));
            case "grpcurl" -> grpcurl(c, w.subList(1, w.size()));
            case "grep" -> { } // filters the output of the command before it
            case "scripts/kind-up.sh" -> kindUp(c, w.subList(1, w.size()));
            case "export" -> assertThat(KNOWN_VARIABLES).as("%s", c).contains(w.get(1).substring(0, w.get(1).indexOf('=')));
            default -> fail(c + ": a kind of command this test does not know; add how to check it to DocCommandsTest");
        }
    }

    // ------------------------------------------------------------------------------------------------ Maven

    private void maven(DocCommands.Command c, List<String> args) throws Exception {
        List<String> modules = new ArrayList<>();
        List<String> profiles = new ArrayList<>();
        Map<String, String> properties = new java.util.LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-pl")) {
                modules.addAll(List.of(args.get(++i).split(",")));
            } else if (a.startsWith("-P")) {
                profiles.add(a.length() > 2 ? a.substring(2) : args.get(++i));
            } else if (a.startsWith("-D")) {
                String p = a.length() > 2 ? a.substring(2) : args.get(++i);
                int eq = p.indexOf('=');
                properties.put(eq < 0 ? p : p.substring(0, eq), eq < 0 ? "true" : p.substring(eq + 1));
            } else if (a.startsWith("-")) {
                assertThat(a).as("%s: Maven option", c).isIn("-q", "-B", "-o", "-am", "-e");
            } else {
                assertThat(a).as("%s: Maven goal", c).isIn("verify", "package", "install", "test", "clean");
            }
        }
        for (String m : modules) {
            assertThat(ROOT.resolve(m).resolve("pom.xml")).as("%s: module %s", c, m).isRegularFile();
        }
        for (String p : profiles) {
            boolean defined = Stream.concat(Stream.of("."), modules.stream())
                    .anyMatch(m -> read(ROOT.resolve(m).resolve("pom.xml")).contains("<id>" + p + "</id>"));
            assertThat(defined).as("%s: profile %s is defined", c, p).isTrue();
        }
        if (properties.containsKey("test")) {
            Set<String> testClasses = testClasses();
            for (String pattern : properties.get("test").split(",")) {
                String regex = pattern.replace("*", ".*");
                assertThat(testClasses).as("%s: -Dtest=%s names a test class", c, pattern).anyMatch(t -> t.matches(regex));
            }
        }
        if (profiles.contains("bench")) {
            bench(c, properties.get("bench.main"), properties.getOrDefault("bench.args", ""));
        }
        if (profiles.contains("demo")) {
            demo(c, DocCommands.split(properties.getOrDefault("muster.args", "demo")).getFirst());
        }
    }

    /** A benchmark's main class exists, and its flags (or JMH's benchmark methods) are ones it reads. */
    private void bench(DocCommands.Command c, String main, String args) {
        Path sources = ROOT.resolve("bench/src/main/java");
        if (main == null || main.equals("org.openjdk.jmh.Main")) {
            Matcher m = Pattern.compile("(\\w+)(?:\\.\\(([\\w|]+)\\)|\\.(\\w+))?").matcher(args.split(" ")[0]);
            assertThat(m.matches()).as("%s: JMH benchmark selector", c).isTrue();
            String source = read(sources.resolve("dev/muster/bench/" + m.group(1) + ".java"));
            String methods = m.group(2) != null ? m.group(2) : m.group(3);
            if (methods != null) {
                for (String method : methods.split("\\|")) {
                    assertThat(source).as("%s: %s has a benchmark %s…", c, m.group(1), method).containsPattern("public [\\w<>\\[\\]]+ " + method + "\\w*\\(");
                }
            }
            return;
        }
        String source = read(sources.resolve(main.replace('.', '/') + ".java"));
        for (String word : args.split(" ")) {
            if (word.startsWith("--")) {
                assertThat(source).as("%s: %s reads %s", c, main, word).contains("\"" + word.substring(2) + "\"");
            }
        }
    }

    private static Set<String> testClasses() throws IOException {
        Set<String> out = new HashSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(p -> p.toString().contains("/src/test/java/") && p.toString().endsWith(".java") && !p.toString().contains("/target/"))
                    .forEach(p -> out.add(p.getFileName().toString().replace(".java", "")));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ the demo

    /** muster-demo's arguments: the quick commands run; {@code demo} and {@code serve} read as they would be. */
    private void demo(DocCommands.Command c, List<String> args) throws Exception {
        String command = args.isEmpty() || args.getFirst().startsWith("--") ? "demo" : args.getFirst();
        List<String> rest = args.isEmpty() || args.getFirst().startsWith("--") ? args : args.subList(1, args.size());
        switch (command) {
            case "demo" -> assertThat(DemoCommand.options(rest, Map.of(), ROOT).scenario()).as("%s", c).isNotNull();
            case "serve" -> assertThat(ServeCommand.options(rest, Map.of(), ROOT).ports()).as("%s", c).isNotNull();
            case "fairness", "topology", "help" -> {
                if (RUN.add(args)) {
                    ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(args, Map.of(), ROOT, out, err));
                    assertThat(r.exit()).as("%s exits 0; err: %s", c, r.err()).isZero();
                    assertThat(r.out()).as("%s prints its report", c).isNotBlank();
                }
            }
            case "queues", "gang", "gangs" -> {
                // reaches for the controller of a running `serve --embedded`: here, one that is not there
                String nobody = "127.0.0.1:" + closedPort();
                ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(args, Map.of("MUSTER_CONTROLLER", nobody), ROOT, out, err));
                assertThat(r.exit()).as("%s: arguments accepted, the call failed; err: %s", c, r.err()).isEqualTo(1);
                assertThat(r.err()).contains("cannot reach the controller at " + nobody);
            }
            case "what-would-it-take" -> {
                // reaches for the extender of a running `serve --embedded` (or a cluster's): here, one that is not there
                String nobody = "127.0.0.1:" + closedPort();
                List<String> withoutFiles = withoutTlsFiles(args);
                ConsoleRun r = ConsoleRun.of((out, err) -> Main.run(withoutFiles, Map.of("MUSTER_EXTENDER", nobody), ROOT, out, err));
                assertThat(r.exit()).as("%s: arguments accepted, the call failed; err: %s", c, r.err()).isEqualTo(1);
                assertThat(r.err()).contains("cannot reach the extender at ");
            }
            default -> fail(c + ": muster-demo has no command " + command);
        }
    }

    /**
     * The arguments without the TLS file flags (the files are a cluster's, not this machine's) and without --extender
     * (the test points it at a closed port): the rest must parse.
     */
    private static List<String> withoutTlsFiles(List<String> args) {
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("--tls-") || a.equals("--extender")) {
                if (!a.contains("=")) {
                    i++;
                }
                continue;
            }
            out.add(a);
        }
        return out;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    // ------------------------------------------------------------------------------------------------ the jars

    private void javaJar(DocCommands.Command c, List<String> args) throws Exception {
        int jar = args.indexOf("-jar");
        assertThat(jar).as("%s: java -jar", c).isNotNegative();
        Matcher m = Pattern.compile("(\\w+)/target/(muster-[\\w-]+?)-(\\d[\\w.-]*)\\.jar").matcher(args.get(jar + 1));
        assertThat(m.matches()).as("%s: a module's jar", c).isTrue();
        String pom = read(ROOT.resolve(m.group(1)).resolve("pom.xml"));
        assertThat(pom).as("%s: the module's artifact", c).contains("<artifactId>" + m.group(2) + "</artifactId>");
        assertThat(m.group(3)).as("%s: the project's version", c).isEqualTo(VERSION);
        assertThat(read(ROOT.resolve("pom.xml"))).contains("<version>" + VERSION + "</version>");
        List<String> rest = args.subList(jar + 2, args.size()).stream().map(DocCommandsTest::kubeconfig).toList();
        switch (m.group(1)) {
            case "demo" -> demo(c, rest);
            case "server" -> process(c, "muster-extender", ServerConfig.usage(), ServerConfig::parse, ServerConfig::kubeconfig, rest);
            case "controller" -> process(c, "muster-controller", ControllerConfig.usage(), ControllerConfig::parse, ControllerConfig::kubeconfig, rest);
            default -> fail(c + ": no runnable jar in " + m.group(1));
        }
    }

    /** {@code ~/.kube/config} stands for the reader's kubeconfig: here one that points nowhere. */
    private static String kubeconfig(String arg) {
        if (!arg.equals("~/.kube/config")) {
            return arg;
        }
        try {
            return Kubeconfigs.pointingNowhere(home).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A process's start up to the point where it would talk to the cluster: with a kubeconfig it gets that far; bare,
     * outside a cluster, it says in one line that a kubeconfig is missing (the document that shows the command quotes that line).
     */
    private <C> void process(DocCommands.Command c, String name, String usage, ProcessStart.Parser<C> parser,
            java.util.function.Function<C, String> kubeconfig, List<String> args) throws Exception {
        KubeClients.InCluster nowhere = new KubeClients.InCluster(Map.of(), home.resolve("no-service-account"));
        ConsoleRun r = ConsoleRun.of((out, err) -> {
            try {
                new ProcessStart(name, usage, out, err).begin(args, Map.of(), parser, kubeconfig, nowhere);
                return -1;
            } catch (ProcessStart.Exit e) {
                return e.code();
            }
        });
        if (args.isEmpty()) {
            assertThat(r.exit()).as("%s", c).isEqualTo(2);
            assertThat(r.errLines()).as("%s", c).singleElement().asString()
                    .startsWith(name + ": no Kubernetes configuration").endsWith("(or set MUSTER_KUBECONFIG)");
            assertThat(read(c.doc())).as("%s quotes the line", c.doc().getFileName()).contains("`" + name + ": no Kubernetes configuration");
        } else {
            assertThat(r.exit()).as("%s: flags accepted; err: %s", c, r.err()).isEqualTo(-1);
        }
    }

    // ------------------------------------------------------------------------------------------------ images and the chart

    /** docker build / tag / push of the two images: their Dockerfiles exist, their names are the chart's. */
    private void docker(DocCommands.Command c, List<String> args) {
        switch (args.getFirst()) {
            case "build" -> {
                int t = args.indexOf("-t");
                image(c, args.get(t + 1));
                assertThat(ROOT.resolve(args.getLast()).resolve("Dockerfile")).as("%s: Dockerfile", c).isRegularFile();
            }
            case "tag" -> args.subList(1, args.size()).forEach(i -> image(c, i));
            case "push" -> image(c, args.get(1));
            default -> fail(c + ": docker " + args.getFirst());
        }
    }

    /** kind load docker-image IMAGE… / minikube image load IMAGE: the images built above. */
    /** The kind script: run with its arguments and {@code --dry-run}, it must accept them and print what it would run. */
    private void kindUp(DocCommands.Command c, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", "scripts/kind-up.sh"));
        command.addAll(args);
        if (!args.contains("--dry-run")) {
            command.add("--dry-run");
        }
        Process p = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("%s finished", c).isTrue();
        assertThat(p.exitValue()).as("%s: %s", c, out).isZero();
        assertThat(out).as("%s prints what it would run", c).contains("+ kind create cluster", "+ helm upgrade --install muster charts/muster");
    }

    private void loadImages(DocCommands.Command c, List<String> w) {
        List<String> images = w.stream().filter(a -> a.contains(":")).toList();
        assertThat(images).as("%s: images to load", c).isNotEmpty();
        images.forEach(i -> image(c, i));
    }

    /** An image the chart runs: its repository is the chart's default or a registry's copy of it, its tag the chart's appVersion. */
    private void image(DocCommands.Command c, String image) {
        String repository = image.substring(0, image.lastIndexOf(':'));
        String tag = image.substring(image.lastIndexOf(':') + 1);
        Map<String, Object> values = values();
        List<String> defaults = List.of(value(values, "extender.image.repository").toString(), value(values, "controller.image.repository").toString());
        assertThat(defaults.stream().anyMatch(d -> repository.equals(d) || repository.endsWith("/" + d.substring(d.indexOf('/') + 1))))
                .as("%s: %s is one of the chart's images %s", c, repository, defaults).isTrue();
        assertThat(read(ROOT.resolve("charts/muster/Chart.yaml"))).as("%s: tag is the chart's appVersion", c).contains("appVersion: \"" + tag + "\"");
    }

    /** helm install NAME CHART [--namespace N] [--create-namespace] [--set key=value]…: every key is a value of the chart. */
    private void helm(DocCommands.Command c, List<String> args) {
        assertThat(args.getFirst()).as("%s", c).isIn("install", "upgrade", "template");
        assertThat(ROOT.resolve(args.get(2)).resolve("Chart.yaml")).as("%s: chart", c).isRegularFile();
        Map<String, Object> values = values();
        for (int i = 3; i < args.size(); i++) {
            if (args.get(i).equals("--set")) {
                String key = args.get(++i).substring(0, args.get(i).indexOf('='));
                assertThat(value(values, key)).as("%s: --set %s is a value of charts/muster/values.yaml", c, key).isNotNull();
            } else if (args.get(i).equals("--namespace")) {
                i++;
            } else {
                assertThat(args.get(i)).as("%s: helm flag", c).isIn("--create-namespace", "--wait");
            }
        }
    }

    /** kubectl needs a cluster; what it applies from the repository exists. */
    private void kubectl(DocCommands.Command c, List<String> args) {
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("-f") && !args.get(i + 1).equals("-")) {
                assertThat(ROOT.resolve(args.get(i + 1))).as("%s: file to apply", c).exists();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ a running Muster

    /** curl against `serve --embedded`: the body it sends exists, the path is one Muster serves. */
    private void curl(DocCommands.Command c, List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("-d") && args.get(i + 1).startsWith("@")) {
                assertThat(ROOT.resolve(args.get(i + 1).substring(1))).as("%s: request body", c).isRegularFile();
            }
        }
        String url = args.getLast();
        assertThat(SERVED_PATHS).as("%s: a path Muster serves", c).contains(url.substring(url.indexOf('/')));
    }

    /** grpcurl against a running Muster: the method exists in Muster's services. */
    private void grpcurl(DocCommands.Command c, List<String> args) {
        Set<String> methods = new HashSet<>();
        Stream.of(QueuesGrpc.getServiceDescriptor(), ExtenderGrpc.getServiceDescriptor(), AllocationsGrpc.getServiceDescriptor())
                .forEach(s -> s.getMethods().stream().map(MethodDescriptor::getFullMethodName).forEach(methods::add));
        assertThat(methods).as("%s: a method of Muster's gRPC services", c).contains(args.getLast());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Map<String, Object> values() {
        return new Yaml().load(read(ROOT.resolve("charts/muster/values.yaml")));
    }

    /** The value at a dotted key, or null when the chart has no such value. */
    @SuppressWarnings("unchecked")
    private static Object value(Map<String, Object> values, String key) {
        Object at = values;
        for (String part : key.split("\\.")) {
            if (!(at instanceof Map<?, ?> map) || !map.containsKey(part)) {
                return null;
            }
            at = ((Map<String, Object>) map).get(part);
        }
        return at == null ? "" : at;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file + " cannot be read", e);
        }
    }
}
