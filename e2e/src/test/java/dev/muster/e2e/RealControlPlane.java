package dev.muster.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where the control-plane binaries are available ({@link ControlPlane#BINARIES_ENV});
 * elsewhere it is skipped, and the first skip of a test run says what the tests need and where to get it.
 */
@java.lang.annotation.Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RealControlPlane.Condition.class)
@interface RealControlPlane {
    final class Condition implements ExecutionCondition {
        /** The skip is explained once per test run, not once per class. */
        private static final java.util.concurrent.atomic.AtomicBoolean EXPLAINED = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (ControlPlane.binariesFromEnvironment().isPresent()) {
                return ConditionEvaluationResult.enabled("control-plane binaries in $" + ControlPlane.BINARIES_ENV);
            }
            if (!EXPLAINED.getAndSet(true)) {
                System.out.println("end-to-end tests skipped: " + ControlPlane.HOW_TO_GET);
            }
            return ConditionEvaluationResult.disabled("no control-plane binaries ($" + ControlPlane.BINARIES_ENV + " is not set)");
        }
    }
}
