#include <iostream>

#include "bandit/util.hpp"
#include "arm/armset.hpp"
#include "policy/policy.hpp"
#include "policy/policy_random.hpp"
#include "policy/policy_rmed.hpp"
#include "policy/policy_rucb_arxiv.hpp"
#include "policy/policy_rucb_icml.hpp"
#include "policy/policy_btm.hpp"
#include "policy/policy_if.hpp"
#include "policy/policy_savage.hpp"
#include "policy/policy_ucb.hpp"
#include "policy/policy_sparring.hpp"
#include "policy/policy_multisbm.hpp"
#include "bandit/simulator.hpp"

using namespace std;
#include <ctime>
using namespace bandit;
// Timing driver for Komiyama et al.'s library: kdriver rucb|rmed1 MATRIX T R prints the steps per
// second of one policy on MATRIX (the library's format), best of R runs of T rounds.
int main(int argc, char** argv) {
  std::string which = argv[1]; std::string path = argv[2]; uint T = atoi(argv[3]); int R = atoi(argv[4]);
  std::vector<std::vector<double> > prefMatrix = prefMatrixFromFile(path);
  const uint K = prefMatrix.size();
  double best = 1e300;
  for (int r = 0; r < R; ++r) {
    RoundwiseLog log(1, T);
    ArmSet armset(prefMatrix, K);
    std::vector<PolicyPtr> policies;
    if (which == "rucb") policies.push_back(PolicyPtr(new RUCBPolicy(K, T)));
    else policies.push_back(PolicyPtr(new RMEDPolicy(K, T, 1)));
    Simulator<RoundwiseLog> sim(armset, policies);
    std::clock_t c0 = std::clock();
    sim.run(log, T);
    double s = double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (s < best) best = s;
  }
  printf("%s %s %u %.4g\n", which.c_str(), path.c_str(), T, T / best);
}
