/* Only here so that the folder exists in the bundle. */
#pragma once
