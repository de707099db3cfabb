package dev.muster.e2e;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The clusters of one kind ({@link E2eCluster}, {@link ControllersCluster}) that test classes running at the same time
 * use: each class holds one cluster for its whole run, alone, so what a test asserts of the whole cluster (no node over
 * its cpu, Muster's books empty after it) is its own. A cluster is started when a class needs one and none is free, up
 * to {@code max} ({@link #LANES} for the tests: the test classes JUnit runs at once, e2e/pom.xml); a class that finds
 * them all held waits for one. Clusters are stopped when the test JVM ends (their own shutdown hooks).
 *
 * <p>Thread-safe: {@link #free} and {@link #started} are guarded by this pool's monitor; a cluster is started outside it
 * (tens of seconds), its place counted in {@link #started} first and given back if the start fails.
 */
final class ClusterPool<C> {
    /** How many test classes run at once, so how many clusters of a kind there may be (system property {@code muster.e2e.lanes}). */
    static final int LANES = Math.max(1, Integer.getInteger("muster.e2e.lanes", 1));

    private final Class<C> type;
    private final int max;
    private final Callable<C> start;
    private final Deque<C> free = new ArrayDeque<>();
    private int started;

    /** @param max how many clusters it may start ({@link #LANES} for the tests' pools) */
    ClusterPool(Class<C> type, int max, Callable<C> start) {
        this.type = type;
        this.max = max;
        this.start = start;
    }

    /** A free cluster, a new one if there is room for it, else the next one given back. */
    C take() throws InterruptedException {
        synchronized (this) {
            while (free.isEmpty() && started >= max) {
                wait();
            }
            if (!free.isEmpty()) {
                return free.pop();
            }
            started++;
        }
        try {
            return start.call();
        } catch (Exception | Error e) {
            synchronized (this) {
                started--;
                notifyAll();
            }
            throw new IllegalStateException("could not start a " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** {@code cluster} free for the next class. */
    synchronized void give(C cluster) {
        free.push(cluster);
        notifyAll();
    }

    /**
     * Holds one cluster of {@code pool} from before a test class's first test until after its last, and gives it to
     * the class's lifecycle methods and tests that take a parameter of the cluster's type.
     */
    abstract static class Lease<C> implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
        private final ClusterPool<C> pool;

        Lease(ClusterPool<C> pool) {
            this.pool = pool;
        }

        @Override
        public void beforeAll(ExtensionContext context) throws InterruptedException {
            store(context).put(pool, pool.take());
        }

        @Override
        public void afterAll(ExtensionContext context) {
            C held = cluster(context);
            if (held != null) {
                store(context).remove(pool);
                pool.give(held);
            }
        }

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == pool.type;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return cluster(context);
        }

        /** The cluster the test class of {@code context} holds (from a test's context too), or null. */
        @SuppressWarnings("unchecked")
        C cluster(ExtensionContext context) {
            return (C) store(context).get(pool);
        }

        private static ExtensionContext.Store store(ExtensionContext context) {
            return context.getStore(ExtensionContext.Namespace.create(Lease.class));
        }
    }
}
