#!/bin/sh
sudo apt-get install -y postgresql-16
