/* Issue 33: the NCCL facts GraphRT's FFM binding (backend-driver-common CollectiveLibrary) hard-codes, printed from
 * the real nccl.h and library on the GPU machine: the version, the id's size and the enum values it passes. */
#include <stdio.h>
#include <nccl.h>

int main(void) {
  int version = 0;
  ncclResult_t rc = ncclGetVersion(&version);
  printf("nccl probe: header NCCL_VERSION_CODE %d, ncclGetVersion %d (rc %d)\n", NCCL_VERSION_CODE, version, (int)rc);
  printf("nccl probe: sizeof(ncclUniqueId) %zu, NCCL_UNIQUE_ID_BYTES %d\n", sizeof(ncclUniqueId), NCCL_UNIQUE_ID_BYTES);
  printf("nccl probe: ncclInt32 %d ncclFloat32 %d ncclSum %d ncclProd %d ncclMax %d ncclMin %d ncclInProgress %d\n",
         (int)ncclInt32, (int)ncclFloat32, (int)ncclSum, (int)ncclProd, (int)ncclMax, (int)ncclMin, (int)ncclInProgress);
  printf("nccl probe: error string of 5: %s\n", ncclGetErrorString(ncclInvalidUsage));
  return 0;
}
