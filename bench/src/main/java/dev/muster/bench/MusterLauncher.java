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
 * ServiceAccount's kubeconfig, plain-HTTP verbs — with the class data the image maps, or another kind to compare
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

    private final Path repo;
    private final Path jar;
    private final Path dir;
    private final ControlPlane cp;
    private final MusterInstall install;
    private final int nodes;
    /** Muster's JVM as the chart starts the extender: C1 alone ({@code extender.compilationMode}); a later {@code --muster-jvm} flag wins. */
    final List<String> jvm = new ArrayList<>(List.of("-Xmx1g", "-XX:+UseSerialGC", "-XX:CompilationMode=quick-only"));
    final List<String> args = new ArrayList<>();
    private final Map<ClassData, String> classDataFlag = new LinkedHashMap<>(); // made on first use
    private final Map<MusterProcess, Integer> http = new LinkedHashMap<>(); // extender → its verbs port
    private double lastReady; // seconds from JVM start to ready of the last extender started

    MusterLauncher(Path repo, String version, Path dir, ControlPlane cp, MusterInstall install, int nodes) {
        this.repo = repo;
        this.jar = MusterProcess.jar(repo, "server", version);
        this.dir = dir;
        this.cp = cp;
        this.install = install;
        this.nodes = nodes;
    }

    /** What one start cost: JVM start to /readyz, CPU by then (total and by thread group), resident memory. */
    record Start(double readySeconds, double cpuSeconds, double rssMb, Map<String, Double> cpuByThreads) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "ready %.2f s, %.2f CPU-s, RSS %.0f MB, by threads %s", readySeconds, cpuSeconds, rssMb, cpuByThreads);
        }
    }

    /** An extender started with {@code classData}, once ready (its first full sync done). */
    MusterProcess start(String name, ClassData classData) {
        int verbs = ControlPlane.freePort();
        List<String> flags = new ArrayList<>(jvm);
        String cds = classDataFlag(classData);
        if (cds != null) {
            flags.add(cds);
        }
        long t0 = System.nanoTime();
        MusterProcess m = MusterProcess.start("extender-" + name, jar, List.copyOf(flags),
                Stream.concat(Stream.of("--kubeconfig=" + install.kubeconfigFor("extender"), "--http-port=" + verbs,
                        "--grpc-port=" + ControlPlane.freePort(), "--leader-elect=false", "--insecure-unauthenticated-verbs"), args.stream()).toList(),
                cp.dataDir(), ControlPlane.freePort());
        double ready = (System.nanoTime() - t0) / 1e9;
        http.put(m, verbs);
        System.out.printf(Locale.ROOT, "muster %s ready in %.2f s (JVM start to /readyz after the first full sync of %d nodes)%n", name, ready, nodes);
        lastReady = ready;
        return m;
    }

    /** An extender started and stopped without being asked anything: what its start cost. */
    Start startOnly(String name, ClassData classData) throws IOException {
        MusterProcess m = start(name, classData);
        try {
            Map<String, Double> threads = new LinkedHashMap<>();
            ProcCpu.byThread(m.pid()).forEach((group, s) -> {
                if (s >= 0.05) {
                    threads.put(group, Math.round(s * 100) / 100.0);
                }
            });
            Start s = new Start(lastReady, ProcCpu.total(m.pid()), rssMb(m.pid()), threads);
            System.out.printf(Locale.ROOT, "start %s %s: %s%n", name, classData, s);
            return s;
        } finally {
            stop(m);
        }
    }

    /** The extender's verbs URL (plain HTTP). */
    String url(MusterProcess m) {
        return "http://127.0.0.1:" + http.get(m);
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
            m = start("aot-training", ClassData.PLAIN);
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
        javaRun(create, "aot-create.log");
        classDataFlag.put(ClassData.TRAINED, "-XX:AOTCache=" + cache);
    }

    private String classDataFlag(ClassData classData) {
        if (classData == ClassData.PLAIN) {
            return null;
        }
        if (classData == ClassData.TRAINED && !classDataFlag.containsKey(classData)) {
            throw new IllegalStateException("no trained cache: call train() first");
        }
        return classDataFlag.computeIfAbsent(classData, c -> {
            try {
                return "-XX:SharedArchiveFile=" + classListArchive(c == ClassData.IMAGE);
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
     * the classes of the repository's class list from the packaged jar, with ahead-of-time linking when {@code linked}.
     */
    private Path classListArchive(boolean linked) throws IOException, InterruptedException {
        Path list = repo.resolve("server/src/main/cds/classlist");
        Path archive = dir.resolve(linked ? "muster.jsa" : "muster-unlinked.jsa");
        List<String> dump = new ArrayList<>(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + archive));
        if (linked) {
            dump.add("-XX:+AOTClassLinking");
        }
        javaRun(dump, archive.getFileName() + ".log");
        return archive;
    }

    /** This JVM's java with {@code flags} and the server jar; fails naming its log when it does not exit 0. */
    private void javaRun(List<String> flags, String logName) throws IOException, InterruptedException {
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
