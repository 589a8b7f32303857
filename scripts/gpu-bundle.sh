#!/usr/bin/env bash
# Builds everything the GPU machine needs into .gpu/ (ignored; name it in the device run's `carry`):
#   jre.tar.xz   a jlinked Java 25 runtime (the GPU machine has no Java)
#   lib/         the project's jars and every test/runtime dependency, plus the JUnit console launcher
#   tests/<m>/   test classes of the GPU backends (their kit classes and smoke tests)
#   hip/         Debian's HIP headers, to build the HIP-on-CUDA library there (when installed here)
#   dawn/, gl/   Dawn's libwebgpu_wrapper.so (xz) and the Vulkan/EGL loader packages for the wgpu backend
#   commit       the commit the bundle was built from
# Then run scripts/gpu-run.sh on the device. Usage: scripts/gpu-bundle.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh
if [ "${1:-}" != "--no-build" ]; then
  scripts/mvn.sh -q install -DskipTests >&2
  scripts/mvn.sh -q test-compile -pl backend-cuda,backend-hip,backend-wgpu >&2
fi
rm -rf .gpu/lib .gpu/tests .gpu/hip
mkdir -p .gpu/lib .gpu/tests
for m in backend-cuda backend-hip backend-wgpu examples; do
  scripts/mvn.sh -q dependency:copy-dependencies -pl "$m" -DincludeScope=test -DoutputDirectory="$PWD/.gpu/lib" >&2
done
cp examples/target/graphrt-examples-0.1.0-SNAPSHOT.jar .gpu/lib/
for m in backend-cuda backend-hip backend-wgpu; do
  [ -d "$m/target/test-classes" ] && cp -r "$m/target/test-classes" ".gpu/tests/${m#backend-}"
done
# The console launcher already holds the JUnit platform and Jupiter: drop the separate copies.
rm -f .gpu/lib/junit-jupiter-*.jar .gpu/lib/junit-platform-[celr]*[0-9].jar .gpu/lib/opentest4j-*.jar .gpu/lib/apiguardian-*.jar
# Not needed on the device (ArchUnit, JMH, AssertJ's optional proxies): keep the carried tree small.
rm -f .gpu/lib/archunit*.jar .gpu/lib/byte-buddy*.jar .gpu/lib/jmh-*.jar .gpu/lib/commons-math3-*.jar .gpu/lib/jopt-simple-*.jar
console=$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/1.14.4/junit-platform-console-standalone-1.14.4.jar
[ -f "$console" ] || scripts/mvn.sh -q dependency:get -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 >&2
cp "$console" .gpu/lib/
if [ -d /usr/include/hip ]; then cp -r /usr/include/hip .gpu/hip; fi
# WebGPU on the device: Dawn (from scripts/setup-webgpu.sh) and the Vulkan/EGL loaders, which that machine lacks.
if [ -f .natives/dawn/libwebgpu_wrapper.so ]; then
  mkdir -p .gpu/dawn
  [ -f .gpu/dawn/libwebgpu_wrapper.so.xz ] || xz -9 -c .natives/dawn/libwebgpu_wrapper.so > .gpu/dawn/libwebgpu_wrapper.so.xz
fi
if [ ! -d .gpu/gl ] && command -v apt-get >/dev/null; then
  mkdir -p .gpu/gl /tmp/graphrt-apt-amd64/partial
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/graphrt-apt-amd64)
  apt-get "${o[@]}" update -qq >&2 && (cd .gpu/gl && apt-get "${o[@]}" download -qq libvulkan1 libegl1 libglvnd0 \
    libopengl0 libgl1 libglx0 libgles2 >&2) || echo "warning: Vulkan loader packages not fetched" >&2
fi
git rev-parse --short HEAD > .gpu/commit
# jdk.management: the cpu backend reads MaxDirectMemorySize and the physical memory for its ceiling.
JRE_MODULES=java.base,java.logging,java.management,java.xml,jdk.jfr,jdk.unsupported,java.naming,jdk.management
if [ ! -f .gpu/jre.tar.xz ] || [ "$(cat .gpu/jre.modules 2>/dev/null)" != "$JAVA_HOME $JRE_MODULES" ]; then
  rm -rf .gpu/jre
  jlink --add-modules "$JRE_MODULES" \
    --strip-debug --no-man-pages --no-header-files --compress=zip-9 --output .gpu/jre
  strip --strip-unneeded .gpu/jre/lib/server/libjvm.so .gpu/jre/lib/*.so 2>/dev/null || true
  tar -C .gpu -cJf .gpu/jre.tar.xz jre
  rm -rf .gpu/jre
  echo "$JAVA_HOME $JRE_MODULES" > .gpu/jre.modules
fi
du -sh .gpu/jre.tar.xz .gpu/lib .gpu/tests >&2
