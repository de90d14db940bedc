// Stands in for the Visual Studio precompiled header of Wu & Liu's simulator on Linux.
#pragma once
#include <stdio.h>
#include <iostream>
#include <fstream>
#include <ctime>
#include <random>
#include <cmath>
#include <algorithm>
#include <string>
#include <vector>
#include <cfloat>
#include <climits>
#include <numeric>
