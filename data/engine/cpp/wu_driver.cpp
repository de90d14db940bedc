// Timing driver for Wu & Liu's simulator: wu_O2 ALG MATRIX T R prints the steps per second of
// algorithm index ALG on MATRIX (K, then the K x K matrix), best of R runs of T steps.
#include "stdafx.h"
#include "DuelingBandit.h"
#include "MAB_singleAlg.h"
int main(int argc, char** argv) {
  int alg = atoi(argv[1]); std::string path = argv[2]; int T = atoi(argv[3]); int R = atoi(argv[4]);
  std::ifstream f(path); int K; f >> K; std::vector<std::vector<double>> m(K, std::vector<double>(K));
  for (int i = 0; i < K; i++) for (int j = 0; j < K; j++) f >> m[i][j];
  struConfig config; config.regret_type = REGRET_TYPE_DIFF; config.btm_gamma = 1.3; config.ucb_scale_factor = 0.51;
  config.klucb_ctrl_factor = 3.0; config.klucb_eps = 1e-6; config.sbm_scale_factor = 3.0; config.rmed2_alpha = 3.0;
  config.ecwrmed_alpha = 3.0; config.ecwrmed_beta = 0.01;
  double best = 1e300;
  for (int r = 0; r < R; r++) {
    CMAB_singleAlg mab(alg);
    std::clock_t c0 = std::clock();
    std::vector<double> out = mab.singleRun(T, m, config);
    double s = double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (s < best) best = s;
    std::cerr << "run " << r << " " << s << " s, final " << out[T - 1] << "\n";
  }
  printf("%d %s %d %.4g\n", alg, path.c_str(), T, T / best);
}
