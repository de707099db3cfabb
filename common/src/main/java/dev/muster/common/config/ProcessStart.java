package dev.muster.common.config;

import dev.muster.common.kube.KubeClients;
import dev.muster.common.ops.ProcessLogging;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * How both processes begin, so that they answer alike: {@code --help} or {@code -h} prints the usage (exit 0); a bad
 * flag prints one line, "{@code <process>: <what is wrong>; see --help}" (exit 2); no usable Kubernetes configuration
 * prints one line, "{@code <process>: <what is missing and what to pass>}" (exit 2). Immutable.
 */
public final class ProcessStart {
    /** {@code main} ends early with {@link #code()}; what to say has been printed. */
    public static final class Exit extends Exception {
        private final int code;

        Exit(int code) {
            super("exit " + code, null, false, false);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** A process's flag parser: {@code ServerConfig::parse}; throws {@link IllegalArgumentException} naming the flag. */
    @FunctionalInterface
    public interface Parser<C> {
        C parse(List<String> args, Map<String, String> env);
    }

    /** A process's body: returns its exit code (at once when it cannot start; when it stops, otherwise). */
    @FunctionalInterface
    public interface Body {
        int run(List<String> args, Map<String, String> env, KubeClients.InCluster inCluster, PrintStream out, PrintStream err) throws Exception;
    }

    /** A process's {@code main}: one log format ({@link ProcessLogging}), then {@code body} on this process's arguments and environment. */
    public static void main(String[] args, Body body) throws Exception {
        ProcessLogging.install();
        int exit = body.run(List.of(args), System.getenv(), KubeClients.InCluster.ofThisProcess(), System.out, System.err);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** The parsed configuration and the Kubernetes clients it names. */
    public record Begun<C>(C config, KubeClients kube) {}

    private final String process;
    private final String usage;
    private final PrintStream out;
    private final PrintStream err;

    /** @param process the name messages start with, e.g. {@code muster-extender} */
    public ProcessStart(String process, String usage, PrintStream out, PrintStream err) {
        this.process = Objects.requireNonNull(process, "process");
        this.usage = Objects.requireNonNull(usage, "usage");
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
    }

    /**
     * The one line a bad flag or command gets: "{@code <who>: <what is wrong>; see --help}" (the usage itself is
     * long; it goes only to {@code --help}). A multi-line message is folded into that line.
     */
    public static String badFlagLine(String who, String message) {
        return who + ": " + String.valueOf(message).strip().replaceAll("\\s*\\R\\s*", " ") + "; see --help";
    }

    /** Whether {@code --kubeconfig} is given, as a flag or as {@code MUSTER_KUBECONFIG}. */
    private static boolean namesKubeconfig(List<String> args, Map<String, String> env) {
        String fromEnv = env.get("MUSTER_KUBECONFIG");
        return (fromEnv != null && !fromEnv.isBlank()) || args.stream().anyMatch(a -> a.equals("--kubeconfig") || a.startsWith("--kubeconfig="));
    }

    /**
     * Parses {@code args} and {@code env}, then builds the clients from the configured kubeconfig or in-cluster.
     * Started without arguments, with neither a kubeconfig nor in-cluster configuration, it says only that (one line).
     */
    public <C> Begun<C> begin(List<String> args, Map<String, String> env, Parser<C> parser, Function<C, String> kubeconfig,
            KubeClients.InCluster inCluster) throws Exit {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(usage);
            throw new Exit(0);
        }
        if (args.isEmpty() && !namesKubeconfig(args, env) && !inCluster.missing().isEmpty()) {
            // started bare outside a cluster: what is missing is a cluster to talk to, so say that alone, before any
            // complaint about what in-cluster configuration would have given (a Lease namespace) and without the flag list
            try {
                KubeClients.create(null, inCluster);
            } catch (KubeClients.ConfigException e) {
                err.println(process + ": " + e.getMessage());
                throw new Exit(2);
            }
        }
        C config;
        try {
            config = parser.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println(badFlagLine(process, e.getMessage()));
            throw new Exit(2);
        }
        try {
            return new Begun<>(config, KubeClients.create(kubeconfig.apply(config), inCluster));
        } catch (KubeClients.ConfigException e) {
            err.println(process + ": " + e.getMessage());
            throw new Exit(2);
        }
    }
}
