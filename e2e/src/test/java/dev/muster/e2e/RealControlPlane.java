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
 * elsewhere it is skipped with a message saying how to get them.
 */
@java.lang.annotation.Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RealControlPlane.Condition.class)
@interface RealControlPlane {
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (ControlPlane.binariesFromEnvironment().isPresent()) {
                return ConditionEvaluationResult.enabled("control-plane binaries in $" + ControlPlane.BINARIES_ENV);
            }
            String message = "skipped: " + ControlPlane.HOW_TO_GET;
            System.out.println("e2e " + context.getDisplayName() + " " + message);
            return ConditionEvaluationResult.disabled(message);
        }
    }
}
