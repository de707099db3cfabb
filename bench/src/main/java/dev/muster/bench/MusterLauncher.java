package dev.muster.bench;

import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.MusterInstall;
import dev.muster.e2e.MusterProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Starts the extenders a benchmark measures as the chart starts them — its JVM flags (C1 alone), the extender
 * ServiceAccount's kubeconfig, plain-HTTP verbs or the chart's mutual TLS ({@link #https}) — with the class data the image maps, or another kind to compare
 * ({@link ClassData}), and reports each one's time to ready, CPU and resident memory by then. One launcher per
 * control plane; used by the benchmark's one driving thread.
 */
final class MusterLauncher {
    /** What class data a started extender maps; a mode's suffix selects it ({@code start-plain}, {@code fresh-trained}). */
    enum ClassData {
        /** The image's: made from server/src/main/cds/classlist with ahead-of-time linking, as server/Dockerfile makes it. */
        IMAGE(""),
        /** None: every class read, parsed and verified from the jars. */
        PLAIN("-plain"),
        /** From the same class list without ahead-of-time linking (classes loaded from the archive, linked at start). */
        UNLINKED("-unlinked"),
        /** An ahead-of-time cache recorded by a training run of this benchmark (a start and one batch). */
        TRAINED("-trained");

        final String suffix;

        ClassData(String suffix) {
            this.suffix = suffix;
        }

        /** The kind a mode names by its suffix (none: the image's). */
        static ClassData of(String mode) {
            for (ClassData c : values()) {
                if (!c.suffix.isEmpty() && mode.endsWith(c.suffix)) {
                    return c;
                }
            }
            return IMAGE;
        }

        /** The mode without its class data suffix. */
        static String base(String mode) {
            ClassData c = of(mode);
            return mode.substring(0, mode.length() - c.suffix.length());
        }
    }

    /** A mode's suffix that starts the baseline jar ({@code --baseline-jar}) instead of this build's, e.g. {@code start-baseline}. */
    static final String BASELINE = "-baseline";

    private final Path repo;
    private final Path jar;
    /** Another build's server jar to compare with (its lib/ beside it), or null. */
    Path baselineJar;
    /** The JVM flags {@link #BASELINE} modes start with instead of {@link #jvm}, or null for the same. */
    List<String> baselineJvm;
    private final Path dir;
    private final ControlPlane cp;
    private final MusterInstall install;
    private final int nodes;
    /**
     * Muster's JVM as the chart starts the extender: the image's heap percentages of the chart's 2 GiB memory limit
     * ({@code -XX:MaxRAM} stands for the container's limit) and compact object headers, C1 alone and the Serial collector
     * ({@code extender.compilationMode}, {@code extender.garbageCollector}); a later {@code --muster-jvm} flag wins.
     */
    final List<String> jvm = new ArrayList<>(List.of("-XX:MaxRAM=2g", "-XX:MaxRAMPercentage=75", "-XX:InitialRAMPercentage=12.5",
            "-XX:+UseSerialGC", "-XX:CompilationMode=quick-only", "-XX:CompileThresholdScaling=0.1", COMPACT_HEADERS));
    final List<String> args = new ArrayList<>();
    /** How the verbs are served: plain HTTP unless {@link #https} said otherwise. */
    private List<String> verbsSecurity = List.of("--insecure-unauthenticated-verbs");
    private String scheme = "http";
    private final Map<String, String> classDataFlag = new LinkedHashMap<>(); // by class data and jar, made on first use
    private final Map<MusterProcess, Integer> http = new LinkedHashMap<>(); // extender → its verbs port
    private double lastReady; // seconds from JVM start to ready of the last extender started
    private double lastApiServerCpu; // the API server's CPU-s from that JVM's start to its ready

    MusterLauncher(Path repo, String version, Path dir, ControlPlane cp, MusterInstall install, int nodes) {
        this.repo = repo;
        this.jar = MusterProcess.jar(repo, "server", version);
        this.dir = dir;
        this.cp = cp;
        this.install = install;
        this.nodes = nodes;
    }

    /**
     * What one start cost: JVM start to /readyz, CPU by then (total and by thread group), resident memory, and the API
     * server's CPU over the same time (mostly answering the extender's first lists).
     */
    record Start(double readySeconds, double cpuSeconds, double rssMb, Map<String, Double> cpuByThreads, double apiServerCpuSeconds) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "ready %.2f s, %.2f CPU-s, RSS %.0f MB, API server %.2f CPU-s, by threads %s", readySeconds,
                    cpuSeconds, rssMb, apiServerCpuSeconds, cpuByThreads);
        }
    }

    /** An extender started with {@code classData}, once ready (its first full sync done). */
    MusterProcess start(String name, ClassData classData) {
        return start(name, classData, false, ControlPlane.freePort());
    }

    private static double apiServerCpu(long pid) {
        try {
            return ProcCpu.total(pid);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("the API server's CPU", e);
        }
    }

    /** The mode without its {@link #BASELINE} suffix. */
    static String withoutBaseline(String mode) {
        return mode.endsWith(BASELINE) ? mode.substring(0, mode.length() - BASELINE.length()) : mode;
    }

    /**
     * An extender of this build or of the baseline jar, started with {@code classData} and its verbs on {@code verbs},
     * once ready (its first full sync done).
     */
    MusterProcess start(String name, ClassData classData, boolean baseline, int verbs) {
        if (baseline && baselineJar == null && baselineJvm == null) {
            throw new IllegalStateException("a " + BASELINE + " mode needs --baseline-jar or --baseline-jvm");
        }
        Path jar = baseline && baselineJar != null ? baselineJar : this.jar;
        List<String> flags = new ArrayList<>(baseline && baselineJvm != null ? baselineJvm : jvm);
        String cds = classDataFlag(classData, jar, compactHeaders(flags));
        if (cds != null) {
            flags.add(cds);
        }
        long apiServer = cp.pids().get("kube-apiserver");
        double apiServerCpu0 = apiServerCpu(apiServer);
        long t0 = System.nanoTime();
        MusterProcess m = MusterProcess.start("extender-" + name, jar, List.copyOf(flags),
                Stream.concat(Stream.of("--kubeconfig=" + install.kubeconfigFor("extender"), "--http-port=" + verbs,
                        "--grpc-port=" + ControlPlane.freePort(), "--leader-elect=false"), Stream.concat(verbsSecurity.stream(), args.stream())).toList(),
                cp.dataDir(), ControlPlane.freePort());
        double ready = (System.nanoTime() - t0) / 1e9;
        lastApiServerCpu = apiServerCpu(apiServer) - apiServerCpu0;
        http.put(m, verbs);
        System.out.printf(Locale.ROOT, "muster %s ready in %.2f s (JVM start to /readyz after the first full sync of %d nodes)%n", name, ready, nodes);
        lastReady = ready;
        return m;
    }

    /**
     * An extender started and stopped without being asked anything: what its start cost. With {@code histogram}, its
     * heap (used and committed) and the classes that fill it, after the figures are read (the histogram collects).
     */
    Start startOnly(String name, ClassData classData, boolean baseline, boolean histogram) throws IOException, InterruptedException {
        MusterProcess m = start(name, classData, baseline, ControlPlane.freePort());
        try {
            Start s = measured(m);
            System.out.printf(Locale.ROOT, "start %s %s: %s%n", name, classData, s);
            if (histogram) {
                heap(m);
            }
            return s;
        } finally {
            stop(m);
        }
    }

    /** What the last extender started cost by now: its ready time, CPU (total and by thread group), resident memory. */
    Start measured(MusterProcess m) throws IOException {
        Map<String, Double> threads = new LinkedHashMap<>();
        ProcCpu.byThread(m.pid()).forEach((group, s) -> {
            if (s >= 0.05) {
                threads.put(group, Math.round(s * 100) / 100.0);
            }
        });
        return new Start(lastReady, ProcCpu.total(m.pid()), rssMb(m.pid()), threads, lastApiServerCpu);
    }

    /** Prints the extender's heap (jcmd GC.heap_info) and the 25 classes that fill most of it (GC.class_histogram, a full collection first). */
    void heap(MusterProcess m) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        for (String command : List.of("GC.heap_info", "GC.class_histogram")) {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(m.pid()), command).redirectErrorStream(true).start();
            List<String> lines = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
            p.waitFor();
            List<String> shown = command.equals("GC.class_histogram") ? Stream.concat(lines.stream().limit(28),
                    lines.stream().filter(l -> l.startsWith("Total"))).toList() : lines;
            shown.forEach(l -> System.out.println("  " + command + " | " + l));
        }
    }

    /** The extender's verbs URL. */
    String url(MusterProcess m) {
        return scheme + "://127.0.0.1:" + http.get(m);
    }

    /**
     * The verbs (and the gRPC port) over the chart's mutual TLS from here on: the extender's certificate, key and client
     * CA from {@code files} (its Secret's files) and the chart's {@code --tls-client-roles}, as the chart starts it.
     */
    void https(Path files, String clientRoles) {
        verbsSecurity = List.of("--tls-cert-file=" + files.resolve("tls.crt"), "--tls-key-file=" + files.resolve("tls.key"),
                "--tls-client-ca-file=" + files.resolve("ca.crt"), "--grpc-tls-cert-file=" + files.resolve("tls.crt"),
                "--grpc-tls-key-file=" + files.resolve("tls.key"), "--grpc-tls-client-ca-file=" + files.resolve("ca.crt"), clientRoles);
        scheme = "https";
    }

    void stop(MusterProcess m) {
        m.close();
        http.remove(m);
    }

    /** Resident memory of a process, in MB (VmRSS of /proc/PID/status). */
    static double rssMb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        return Double.NaN;
    }

    /**
     * Makes the ahead-of-time cache of {@link ClassData#TRAINED}: an extender records what it loads and links in a start
     * and {@code workload} ({@code -XX:AOTMode=record}), then a second JVM assembles the cache from that record
     * ({@code -XX:AOTMode=create}), as JDK 25's two-step training does.
     */
    void train(Consumer<MusterProcess> workload) throws IOException, InterruptedException {
        Path config = dir.resolve("muster.aotconf");
        Path cache = dir.resolve("muster.aot");
        List<String> saved = List.copyOf(jvm);
        jvm.addAll(List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + config));
        MusterProcess m;
        try {
            m = start("aot-training", ClassData.PLAIN, false, ControlPlane.freePort());
        } finally {
            jvm.clear();
            jvm.addAll(saved);
        }
        try {
            workload.accept(m);
        } finally {
            // the record is written as the JVM exits, which takes seconds on a busy machine: SIGTERM, then wait for it
            ProcessHandle.of(m.pid()).ifPresent(p -> {
                p.destroy();
                p.onExit().orTimeout(120, java.util.concurrent.TimeUnit.SECONDS).join();
            });
            stop(m);
        }
        if (!Files.isRegularFile(config)) {
            throw new IllegalStateException("the training run wrote no " + config + ": see its log in " + cp.dataDir());
        }
        List<String> create = new ArrayList<>(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + config, "-XX:AOTCache=" + cache));
        create.addAll(0, jvm);
        javaRun(create, jar, "aot-create.log");
        classDataFlag.put(ClassData.TRAINED + " " + jar + " " + compactHeaders(jvm), "-XX:AOTCache=" + cache);
    }

    /**
     * Whether a JVM started with {@code flags} lays objects out with compact headers (the last such flag wins; off
     * unless asked for, in this Java release): a class data archive maps only into a JVM of the same layout.
     */
    static boolean compactHeaders(List<String> flags) {
        boolean compact = false;
        for (String f : flags) {
            if (f.equals(COMPACT_HEADERS)) {
                compact = true;
            } else if (f.equals("-XX:-UseCompactObjectHeaders")) {
                compact = false;
            }
        }
        return compact;
    }

    private static final String COMPACT_HEADERS = "-XX:+UseCompactObjectHeaders";

    private String classDataFlag(ClassData classData, Path jar, boolean compact) {
        if (classData == ClassData.PLAIN) {
            return null;
        }
        String key = classData + " " + jar + " " + compact;
        if (classData == ClassData.TRAINED && !classDataFlag.containsKey(key)) {
            throw new IllegalStateException("no trained cache of " + jar + ": call train() first");
        }
        return classDataFlag.computeIfAbsent(key, c -> {
            try {
                return "-XX:SharedArchiveFile=" + classListArchive(classData == ClassData.IMAGE, jar, compact);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * A class data archive made the way server/Dockerfile makes the image's: this JVM (the image's Java release) dumps
     * the classes of the repository's class list from the packaged jar, with ahead-of-time linking when {@code linked},
     * for objects with compact headers when {@code compact}.
     */
    private Path classListArchive(boolean linked, Path jar, boolean compact) throws IOException, InterruptedException {
        Path list = repo.resolve("server/src/main/cds/classlist");
        String name = (jar.equals(this.jar) ? "muster" : "muster-baseline") + (linked ? "" : "-unlinked") + (compact ? "" : "-wide-headers");
        Path archive = dir.resolve(name + ".jsa");
        List<String> dump = new ArrayList<>(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + archive));
        if (linked) {
            dump.add("-XX:+AOTClassLinking");
        }
        if (compact) {
            dump.add(COMPACT_HEADERS);
        }
        javaRun(dump, jar, archive.getFileName() + ".log");
        return archive;
    }

    /** This JVM's java with {@code flags} and {@code jar}; fails naming its log when it does not exit 0. */
    private void javaRun(List<String> flags, Path jar, String logName) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.addAll(List.of("-jar", jar.toString()));
        Path log = dir.resolve(logName);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: see " + log);
        }
    }
}
