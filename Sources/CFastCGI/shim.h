#pragma once
#include <fcgiapp.h>
