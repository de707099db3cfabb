package dev.muster.common.ops;

import java.util.logging.Level;
import java.util.logging.LogManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * One log format per process: everything goes to SLF4J's simple backend, configured by {@code simplelogger.properties}
 * (this module's for the deployed processes: ISO time, thread, level, logger; {@code src/test/resources}' in tests:
 * warnings and errors only). Muster's own code logs through SLF4J or {@code System.Logger}; {@code System.Logger},
 * gRPC, OkHttp and the test mock server log through {@code java.util.logging}, which {@link #install()} routes to
 * SLF4J, with the JUL root level set from SLF4J's so that records nobody prints are never built.
 *
 * <p>Both processes call {@link #install()} first thing in {@code main}. Tests name this class as JUL's configuration
 * class ({@code -Djava.util.logging.config.class=dev.muster.common.ops.ProcessLogging}, in the modules' surefire
 * configuration), which runs the public constructor when JUL starts. Idempotent and thread-safe.
 */
public final class ProcessLogging {
    /** For {@code java.util.logging.config.class}: JUL calls it once when it starts. */
    public ProcessLogging() {
        install();
    }

    /** Routes java.util.logging to SLF4J (once; later calls only re-apply the level). */
    public static synchronized void install() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            LogManager.getLogManager().reset();
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
        java.util.logging.Logger.getLogger("").setLevel(julLevel(LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)));
    }

    /** The JUL level that lets through exactly what {@code slf4j} would print. */
    static Level julLevel(Logger slf4j) {
        if (slf4j.isTraceEnabled()) {
            return Level.FINEST;
        }
        if (slf4j.isDebugEnabled()) {
            return Level.FINE;
        }
        if (slf4j.isInfoEnabled()) {
            return Level.INFO;
        }
        if (slf4j.isWarnEnabled()) {
            return Level.WARNING;
        }
        return slf4j.isErrorEnabled() ? Level.SEVERE : Level.OFF;
    }
}
