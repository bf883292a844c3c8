// The Catch2 main of the MPI tests: every rank runs every test case in the same
// order. MPI runs at MPI_THREAD_MULTIPLE (collectives on dlk's background
// thread) unless DLK_TEST_MPI_THREAD_LEVEL=serialized asks for the level at which
// dlk runs everything in the caller's thread.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

#include <mpi.h>

int main(int argc, char **argv) {
  const char *level = std::getenv("DLK_TEST_MPI_THREAD_LEVEL");
  const int wanted = level && std::strcmp(level, "serialized") == 0 ? MPI_THREAD_SERIALIZED
                                                                    : MPI_THREAD_MULTIPLE;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, wanted, &provided);
  const int failed = Catch::Session().run(argc, argv);
  MPI_Finalize();
  return failed;
}
