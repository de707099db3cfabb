package dev.muster.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core (ledger, gang planner, queue admission, stream, status folding) knows no transport: no
 * Kubernetes client, no gRPC, no HTTP server, no JSON library. Adapters at the edge translate.
 */
class CoreIsTransportFreeTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.muster.core");

    @Test
    void coreImportsNoKubernetesGrpcHttpOrJson() {
        noClasses().that().resideInAPackage("dev.muster.core..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.kubernetes..", "io.fabric8..", "io.grpc..", "com.google.protobuf..",
                        "com.sun.net.httpserver..", "java.net.http..", "okhttp3..", "jakarta.servlet..", "javax.servlet..",
                        "io.netty..", "com.fasterxml.jackson..", "com.google.gson..", "org.json..", "jakarta.json..",
                        "org.yaml..", "dev.muster.proto..", "dev.muster.common..", "dev.muster.server..", "dev.muster.controller..")
                .because("the scheduling core must stay plain Java; adapters translate at the edge")
                .check(CORE);
    }

    @Test
    void theCheckReallySeesTheCore() {
        org.assertj.core.api.Assertions.assertThat(CORE.contain("dev.muster.core.ledger.Ledger")).isTrue();
        org.assertj.core.api.Assertions.assertThat(CORE.contain("dev.muster.core.scheduler.GangScheduler")).isTrue();
    }
}
