// NCCL hang lines as torch's ProcessGroupNCCL prints them inside a Ray actor's prefix (hangs*.test.ts).

/** A rank's watchdog line as torch 2.x prints it, inside the Ray actor prefix of its node. */
export const watchdog = (rank: number, ip: string, seq = 1234) =>
  `\u001b[36m(MegatronTrainRayActor pid=${3300 + rank}, ip=${ip})\u001b[0m [rank${rank}]:[E1201 10:15:32.123456789 ProcessGroupNCCL.cpp:616] [Rank ${rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=${seq}, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.`;
// torch 2.1's shape: no `[rankN]:` head, `[E ProcessGroupNCCL.cpp:475]`.
export const olderWatchdog = '(MegatronTrainRayActor pid=3307, ip=10.0.0.3) [E ProcessGroupNCCL.cpp:475] [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=_ALLGATHER_BASE, NumelIn=64, NumelOut=512, Timeout(ms)=1800000) ran for 1800341 milliseconds before timing out.';
