#!/usr/bin/env bash
# Build the authors' simulators with the timing drivers of this folder and time them on the
# matrices of cpp_same_sitting.csv (see ../cpp_same_sitting.md).
#   WU=<checkout of HuasenWu/DuelingBandits at 2fa5d9f>  KOM=<checkout of jkomiyama/duelingbanditlib at ee43828>
#   MATRICES=<folder of <dataset>.txt: K on the first line, then the K x K matrix>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/cpp_timing}
mkdir -p "$out/wu/shim" "$out/kom"
cp "$WU"/DuelingBandit/*.cpp "$WU"/DuelingBandit/*.h "$out/wu/"
# the Windows-only entry points, precompiled header and the bandit (not dueling) algorithms are left out
rm -f "$out"/wu/{stdafx.h,stdafx.cpp,targetver.h,DuelingBandit.cpp,DuelingBandit_singleAlg.cpp,MAB.cpp,MAB.h}
rm -f "$out"/wu/{Alg_KLUCB.cpp,Alg_TS.cpp,Alg_RMED1.cpp,Alg_RMED2.cpp}
cp "$here/wu_stdafx.h" "$out/wu/shim/stdafx.h"; touch "$out/wu/shim/targetver.h"
cp "$here/wu_driver.cpp" "$out/wu/driver.cpp"
(cd "$out/wu" && g++ -O2 -std=c++14 -Ishim -w -o wu_O2 ./*.cpp && g++ -O3 -march=native -std=c++14 -Ishim -w -o wu_O3n ./*.cpp)
cp "$here/komiyama_driver.cpp" "$KOM/kdriver.cpp"
(cd "$KOM" && g++ -O3 -std=c++0x -w -o "$out/kom/kdriver" kdriver.cpp)
for m in mslr5_noncondorcet_printed mslr5_condorcet_printed sushi; do
  tail -n +2 "$MATRICES/$m.txt" > "$out/kom/$m.pref"
  # Wu & Liu's algorithm indices: RUCB 2, RMED1 8, CCB 6, ECW-RMED 10, D-TS 11, D-TS+ 12, RCS 3, BTM 0, Sparring 5
  for a in 2 8 6 10 11 12 3 0 5; do "$out/wu/wu_O2" $a "$MATRICES/$m.txt" 1000000 3 2>/dev/null | tail -1 | sed "s/^/O2 /"; done
  for a in 11 12; do "$out/wu/wu_O3n" $a "$MATRICES/$m.txt" 1000000 3 2>/dev/null | tail -1 | sed "s/^/O3n /"; done
  for a in rucb rmed1; do "$out/kom/kdriver" $a "$out/kom/$m.pref" 1000000 3 | tail -1 || true; done
done
